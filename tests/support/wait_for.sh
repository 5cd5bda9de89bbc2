# Sourced by the shell tests (bash): one way to wait for a condition instead of sleeping.
#   wait_for COMMAND [ARG...]   runs the command every 0.1 s, its output discarded, until it
#                               succeeds (returns 0), for up to $WAIT_SECONDS s (default 60);
#                               returns 1 when it never did
wait_for() {
  local tries=$(( ${WAIT_SECONDS:-60} * 10 ))
  for _ in $(seq "$tries"); do "$@" >/dev/null 2>&1 && return 0; sleep 0.1; done
  return 1
}
