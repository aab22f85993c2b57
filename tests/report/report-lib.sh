# Helpers for make report's sections (POSIX sh; sourced after
# tests/guest/lib.sh by tests/report/guest.sh).

# csv NAME.csv FIELD...: one row of build/report/data/NAME.csv (the first
# row a section prints is the header); fields must not hold commas
csv() { _c_name=$1; shift; echo "@@csv $_c_name $(echo "$*" | tr ' ' ',')"; }
# sum KEY VALUE...: one row of the report's summary table
sum() { _s_key=$1; shift; echo "@@sum $_s_key $*"; }

# report_module [PARAM=VALUE...]: the module loaded with these parameters
# (reloaded if it runs with other values); call before setup_pair. guest.sh
# restores the defaults after the section.
report_module() {
	_rm_ok=1
	if lsmod | grep -q '^innova '; then
		for _rm in "$@"; do
			[ "$(cat "/sys/module/innova/parameters/${_rm%%=*}" 2>/dev/null)" = "${_rm#*=}" ] || _rm_ok=0
		done
	else
		_rm_ok=0
	fi
	[ $_rm_ok = 1 ] && return 0
	teardown_pair
	rmmod innova 2>/dev/null
	modprobe innova "$@" || die "modprobe innova $*"
}

# per10k VALUE: "8886" -> "88.86" (percent)
per10k() { awk -v v="$1" 'BEGIN { printf "%.2f", v / 100 }'; }
