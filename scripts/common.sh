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
			if [ "$(id -u)" -eq 0 ]; then
				runuser -u postgres -- "$bin/pg_ctl" -D "$dir" -m immediate -w stop
			else
				"$bin/pg_ctl" -D "$dir" -m immediate -w stop
			fi
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
