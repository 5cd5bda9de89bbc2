# Sourced by the benchmarks that run PostgreSQL 15 clusters of their own under a temporary
# directory (bench/backup, bench/move, bench/upgrade): each on a free loopback port with
# its socket in that directory, trust authentication, fsync on (as a pod runs). As root
# the clusters run as the `postgres` user, who connects as itself; otherwise as the caller.
#   source "$root/bench/cluster.sh"
#   bench_work NAME                  # sets work (/tmp/storeapi-NAME-XXXXXX), runas, user, bin
#   cluster_start DIR PORT [LINE...] # initdb DIR, the LINEs added to its postgresql.conf, start
#   cluster_stop DIR                 # stop it if it runs (for the script's EXIT trap)
#   free_port                        # a free loopback port
bin=/usr/lib/postgresql/15/bin

bench_work() {
  work=$(mktemp -d "/tmp/storeapi-$1-XXXXXX")
  runas=()
  if [[ $(id -u) == 0 ]]; then chown postgres "$work"; runas=(runuser -u postgres --); fi
  user=$([[ $(id -u) == 0 ]] && echo postgres || id -un)
}

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

cluster_start() {
  local dir=$1 port=$2
  shift 2
  "${runas[@]}" "$bin/initdb" -D "$dir" -U "$user" --auth=trust -E UTF8 --locale=C.UTF-8 >/dev/null
  {
    echo "listen_addresses = '127.0.0.1'"
    echo "port = $port"
    echo "unix_socket_directories = '$work'"
    printf '%s\n' "$@"
  } >>"$dir/postgresql.conf"
  "${runas[@]}" "$bin/pg_ctl" -D "$dir" -l "$dir.log" -w start >/dev/null
}

cluster_stop() {
  [[ -f $1/postmaster.pid ]] && "${runas[@]}" "$bin/pg_ctl" -D "$1" -m fast stop >/dev/null 2>&1 || true
}
