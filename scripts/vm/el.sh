# shellcheck shell=sh
# el.sh - sourced by the VM tier's guest scripts (busybox sh; run.sh puts it
# in the initramfs as /tests/vm-el.sh): the time each result line took, so
# that a CI log says where the VM tiers' time goes (scripts/tap-times.sh).
#   vm_el            "# N.N s": seconds since the previous vm_el (or since
#                    this file was sourced), printed after an ok/not ok line
#   vm_since T LABEL "# LABEL: N.N s": seconds since vm_now set _vm_now to T
#                    (the next vm_el counts from here)
# /proc/uptime and shell arithmetic only: no fork under TCG.
vm_now() {
	read -r _vm_up _vm_idle </proc/uptime
	_vm_f=${_vm_up#*.}
	_vm_now=$((${_vm_up%.*} * 100 + ${_vm_f#0}))
}
vm_now
_vm_t=$_vm_now
vm_el() {
	vm_now
	_vm_d=$(((_vm_now - _vm_t) / 10))
	_vm_t=$_vm_now
	echo "# $((_vm_d / 10)).$((_vm_d % 10)) s"
}
vm_since() {
	vm_now
	_vm_d=$(((_vm_now - $1) / 10))
	_vm_t=$_vm_now
	echo "# $2: $((_vm_d / 10)).$((_vm_d % 10)) s"
}
