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
wj_lock() {
	exec 9>"$WJ_LOCK"
	flock 9
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
	pg_virtualenv -o shared_preload_libraries=windowjoin "$@"
}
