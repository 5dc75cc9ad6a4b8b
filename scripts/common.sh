# Shared by scripts/test, scripts/demo and scripts/bench: install what the
# project needs on a fresh Debian 12 machine, then build and install the
# extension.  Sourced, not executed.

WJ_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# The installed module is machine-wide: two runs that build and test at the
# same time would overwrite each other's copy.  Callers hold this lock.
WJ_LOCK=${WJ_LOCK:-/tmp/windowjoin-install.lock}

# Take the lock for the rest of this shell, on file descriptor 9 (which
# child scripts inherit; a child that must lock again closes it first, or is
# told with WJ_LOCK_HELD=1 / --installed / --no-build that it is held).
# No server may inherit it: a postmaster that outlived an interrupted run
# would hold the lock for ever, so every server the scripts start gets
# "9>&-" (wj_virtualenv, scripts/citus, scripts/memcheck).  A run that has
# to wait says who holds the lock, and gives up after WJ_LOCK_WAIT seconds
# (default 1800).  Then the watchdog (wj_watchdog) starts.
wj_lock() {
	local wait=${WJ_LOCK_WAIT:-1800}

	exec 9>"$WJ_LOCK"
	if ! flock -n 9; then
		echo "waiting for $WJ_LOCK, held by: $(wj_lock_holders)" >&2
		if ! flock -w "$wait" 9; then
			echo "gave up after ${wait} s waiting for $WJ_LOCK, held by: $(wj_lock_holders)" >&2
			echo "stop that run, or wait longer with WJ_LOCK_WAIT=SECONDS" >&2
			exit 1
		fi
	fi
	wj_watchdog
}

# The processes other than this shell that have the lock file open: "PID
# (command line)" each.
wj_lock_holders() {
	local fd pid seen=" $$ $BASHPID " out=""

	for fd in /proc/[0-9]*/fd/*; do
		[ "$(readlink "$fd" 2>/dev/null)" = "$WJ_LOCK" ] || continue
		pid=${fd#/proc/}
		pid=${pid%%/*}
		case $seen in *" $pid "*) continue ;; esac
		seen="$seen$pid "
		out="$out${out:+, }$pid ($(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | cut -c1-80))"
	done
	echo "${out:-nobody any more}"
}

# The watchdog: a background process, holding the lock with this shell,
# that waits for this shell to end, however it ends (done, Ctrl-C, killed by
# a time limit, with its whole process group), then stops every server the
# run left running: the throwaway cluster of pg_virtualenv
# (wj_drop_stale_virtualenv) and every data directory registered with
# wj_register_server.  Only then is the lock free, so the next run never
# meets them.  It runs in a session of its own (setsid), out of reach of a
# signal to this shell's process group.
wj_watchdog() {
	[ -z "${WJ_SERVERS:-}" ] || return 0
	WJ_SERVERS=$(mktemp /tmp/windowjoin-servers-XXXXXX)
	export WJ_SERVERS
	setsid bash -c 'source "$1"; wj_watch "$2"' wj-watchdog \
		"$WJ_ROOT/scripts/common.sh" $$ </dev/null >/dev/null 2>&1 &
	WJ_WATCHDOG=$!
}

# The watchdog's loop: wait for process $1 to end, then wj_stop_servers.
wj_watch() {
	trap '' INT TERM HUP
	while kill -0 "$1" 2>/dev/null; do
		sleep 1
	done
	wj_stop_servers
}

# Give the lock back before this shell ends (its servers are stopped): close
# descriptor 9 and end the watchdog, which holds it too.
wj_unlock() {
	exec 9>&-
	if [ -n "${WJ_WATCHDOG:-}" ]; then
		kill -KILL "$WJ_WATCHDOG" 2>/dev/null || true
		wait "$WJ_WATCHDOG" 2>/dev/null || true
		rm -f "$WJ_SERVERS"
		unset WJ_WATCHDOG WJ_SERVERS
	fi
}

# Record a server this run started (its bin directory and data directory),
# for the watchdog to stop if the run does not.
wj_register_server() {
	[ -n "${WJ_SERVERS:-}" ] && echo "$1 $2" >>"$WJ_SERVERS"
	return 0
}

# Stop the servers of wj_register_server and the pg_virtualenv cluster.
wj_stop_servers() {
	local bin dir

	if [ -f "${WJ_SERVERS:-}" ]; then
		while read -r bin dir; do
			[ -f "$dir/postmaster.pid" ] || continue
			wj_as_owner "$bin/pg_ctl" -D "$dir" -m immediate -w stop
		done <"$WJ_SERVERS"
		rm -f "$WJ_SERVERS"
	fi
	[ "$(id -u)" -ne 0 ] || wj_drop_stale_virtualenv
}

wj_need_packages() {
	local missing=()
	local pkg
	for pkg in "$@"; do
		dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' ||
			missing+=("$pkg")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	if [ "$(id -u)" -ne 0 ]; then
		echo "missing Debian packages: ${missing[*]} (run as root, or install them)" >&2
		return 1
	fi
	echo "installing ${missing[*]} ..." >&2
	apt-get update -qq >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >&2
}

wj_ensure_deps() {
	wj_need_packages postgresql-15 postgresql-server-dev-15 postgresql-common \
		build-essential make gcc
	export PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config
}

# Build with every warning fatal and install into PostgreSQL 15.
wj_build_install() {
	(cd "$WJ_ROOT" &&
		make -s clean >/dev/null &&
		make -s WERROR=1 -j2 &&
		make -s install >/dev/null)
}

# pg_virtualenv run as root creates the cluster "15/regress" in the system
# directories; one that was killed half-way leaves it behind and every later
# run refuses to start.  Callers hold $WJ_LOCK, so no live run owns it.
wj_drop_stale_virtualenv() {
	if [ -e /etc/postgresql/15/regress/.by_pg_virtualenv ] ||
		{ [ -d /etc/postgresql/15/regress ] && [ -z "$(ls -A /etc/postgresql/15/regress)" ]; }; then
		echo "removing a stale pg_virtualenv cluster 15/regress" >&2
		pg_ctlcluster 15 regress stop -m immediate >/dev/null 2>&1 || true
		pg_dropcluster 15 regress >/dev/null 2>&1 || true
		rm -rf /etc/postgresql/15/regress /var/lib/postgresql/15/regress
	fi
}

# Run a command in a throwaway cluster that preloads windowjoin.
wj_virtualenv() {
	[ "$(id -u)" -eq 0 ] && wj_drop_stale_virtualenv
	pg_virtualenv -o shared_preload_libraries=windowjoin "$@" 9>&-
}

# --- other PostgreSQL majors (PG_VERSIONS) --------------------------------
# 15 is Debian's, installed by wj_ensure_deps and tested by scripts/test
# itself.  17 and 18 are assembled in /opt/pg/MAJOR by
# ../shared/pg-versions/install.sh (server, contrib, PGXS and pg_regress;
# no psql: the system's psql 15 talks to them).  wj_test_major MAJOR [FORCED]
# builds and installs the extension there and runs the regression suite
# and (unless FORCED is 0) the parallel-forced pass against a throwaway
# cluster.

# pg_config of a major
wj_pg_config() {
	if [ "$1" = 15 ]; then
		echo /usr/lib/postgresql/15/bin/pg_config
	else
		echo "/opt/pg/$1/bin/pg_config"
	fi
}

# Make sure PostgreSQL MAJOR is there (assembled on first use, as root).
wj_ensure_pg() {
	local major=$1
	if [ "$major" = 15 ]; then
		wj_ensure_deps
		return
	fi
	[ -x "/opt/pg/$major/bin/postgres" ] &&
		[ -f "/opt/pg/$major/include/server/postgres.h" ] && return 0
	"$WJ_ROOT/../shared/pg-versions/install.sh" "$major" >&2
}

# Build with every warning fatal and install into PostgreSQL MAJOR.
wj_build_install_major() {
	local pgc
	pgc=$(wj_pg_config "$1")
	(cd "$WJ_ROOT" &&
		make -s clean PG_CONFIG="$pgc" >/dev/null &&
		make -s WERROR=1 -j2 PG_CONFIG="$pgc" &&
		make -s install PG_CONFIG="$pgc" >/dev/null)
}

# Run a command as the cluster's owner: postgres when we are root.
wj_as_owner() {
	if [ "$(id -u)" -eq 0 ]; then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}

# --- the live-server tests (test/continuous/*.sh) -------------------------
# The server binaries of MAJOR: Debian's for 15, ../shared/pg-versions' others.
wj_bin() {
	if [ "$1" = 15 ]; then echo /usr/lib/postgresql/15/bin; else echo "/opt/pg/$1/bin"; fi
}

# wj_live_install MAJOR INSTALLED: unless the caller holds the install lock
# and has installed this tree (INSTALLED = 1: scripts/test), install what the
# test needs and this tree for MAJOR, holding the lock.
wj_live_install() {
	[ "$2" -eq 1 ] && return 0
	wj_ensure_deps
	wj_lock
	if [ "$1" = 15 ]; then
		wj_build_install
	else
		wj_ensure_pg "$1"
		wj_build_install_major "$1"
	fi
}

# The role that owns a test's clusters: postgres when run as root.
wj_cluster_owner() {
	if [ "$(id -u)" -eq 0 ]; then echo postgres; else id -un; fi
}

# wj_live_dir NAME: a new directory /tmp/wj-NAME-XXXXXX for a test's
# clusters, owned by wj_cluster_owner.
wj_live_dir() {
	local d
	d=$(mktemp -d "/tmp/wj-$1-XXXXXX")
	[ "$(id -u)" -eq 0 ] && chown postgres "$d"
	echo "$d"
}

# Start a throwaway cluster of MAJOR that preloads windowjoin, in a new
# directory under /tmp with its own socket directory and port; further
# arguments are lines for its postgresql.conf ("shared_buffers=1GB").  Sets
# WJ_CLUSTER (the directory, for wj_cluster_stop), PGHOST, PGPORT, PGUSER.
wj_cluster_start() {
	local major=$1 bin="/opt/pg/$1/bin" owner line
	shift
	WJ_CLUSTER=$(wj_live_dir "pg$major")
	owner=$(wj_cluster_owner)
	wj_as_owner "$bin/initdb" -D "$WJ_CLUSTER/data" -A trust -U "$owner" >/dev/null
	cat >>"$WJ_CLUSTER/data/postgresql.conf" <<CONF
listen_addresses = ''
port = $((54000 + major))
unix_socket_directories = '$WJ_CLUSTER'
shared_preload_libraries = 'windowjoin'
CONF
	for line in "$@"; do
		echo "$line" >>"$WJ_CLUSTER/data/postgresql.conf"
	done
	# not holding the install lock; stopped by the watchdog if the run is killed
	wj_as_owner "$bin/pg_ctl" -D "$WJ_CLUSTER/data" -l "$WJ_CLUSTER/log" -w start >/dev/null 9>&-
	wj_register_server "$bin" "$WJ_CLUSTER/data"
	export PGHOST=$WJ_CLUSTER PGPORT=$((54000 + major)) PGUSER=$owner
}

# pg_virtualenv for another major: wj_virtualenv_major MAJOR [-o name=value]...
# command...  runs command against a throwaway cluster of MAJOR
# (wj_cluster_start, with those settings), then stops and removes it.
wj_virtualenv_major() (
	major=$1
	conf=()
	shift
	while [ "${1:-}" = -o ]; do
		conf+=("$2")
		shift 2
	done
	trap 'wj_cluster_stop "$major"' EXIT
	trap 'exit 130' INT TERM
	wj_cluster_start "$major" "${conf[@]}" || exit 1
	"$@"
)

# Stop the cluster of wj_cluster_start and remove it; harmless twice.
wj_cluster_stop() {
	[ -n "${WJ_CLUSTER:-}" ] && [ -d "$WJ_CLUSTER" ] || return 0
	wj_as_owner "/opt/pg/$1/bin/pg_ctl" -D "$WJ_CLUSTER/data" -m fast -w stop \
		>/dev/null 2>&1 || true
	rm -rf "$WJ_CLUSTER"
	WJ_CLUSTER=
}

# The regression suite (in the parallel groups of test/schedule) and the
# parallel-forced pass on PostgreSQL MAJOR
# (17 or 18), in a throwaway cluster of wj_virtualenv_major, which always
# stops and removes it.  Prints one "test NAME (PostgreSQL MAJOR) ... ok" line per
# suite and pass, as scripts/test counts them, and the wall time of each
# pass; exits non-zero on any failure.  The caller holds $WJ_LOCK (the
# build is installed machine-wide, in /opt/pg/MAJOR).
wj_test_major() (
	major=$1
	forced=${2:-1}
	cd "$WJ_ROOT"
	wj_ensure_pg "$major" || exit 1
	echo "== PostgreSQL $major: $("/opt/pg/$major/bin/postgres" --version)"
	wj_build_install_major "$major" || exit 1
	wj_virtualenv_major "$major" -o "max_worker_processes = 16" -o "max_parallel_workers = 12" \
		wj_major_suites "$major" "$forced"
)

# wj_test_major's two passes, inside the throwaway cluster of MAJOR (the
# parallel-forced one unless FORCED is 0).
wj_major_suites() {
	local major=$1 forced=${2:-1} status=0 start
	set -o pipefail
	export PG_CONFIG
	PG_CONFIG=$(wj_pg_config "$major")
	# pg_regress of that major with the system's psql 15 (none in /opt/pg)
	export EXTRA_REGRESS_OPTS="--bindir=/usr/lib/postgresql/15/bin"
	start=$SECONDS
	make -s installcheck-parallel PG_CONFIG="$PG_CONFIG" 2>&1 |
		sed -E "s/^ok +[0-9]+ +[-+] +([a-z0-9_]+) .*/test \1 (PostgreSQL $major) ... ok/" ||
		status=1
	if [ "$status" -ne 0 ]; then
		head -200 regression.diffs 2>/dev/null || true
	fi
	echo "PostgreSQL $major: regression suite $((SECONDS - start)) s"
	[ "$forced" -eq 1 ] || return $status
	start=$SECONDS
	test/parallel/run.sh 2>&1 |
		sed "s/(parallel plans forced)/(parallel plans forced, PostgreSQL $major)/" ||
		status=1
	echo "PostgreSQL $major: parallel-forced pass $((SECONDS - start)) s"
	return $status
}
