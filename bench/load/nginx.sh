# Sourced by the benchmark scripts (bench/load/run, bench/profile): free ports, and nginx
# as the baseline that answers fixed bytes.

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

wait_for_port() {  # port: wait until something accepts connections there
  for _ in $(seq 200); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    sleep 0.05
  done
  echo "nothing listens on port $1" >&2
  return 1
}

# start_nginx DIR BODY WORKERS: nginx with WORKERS worker processes answering every
# request with BODY as application/json, its files under DIR; sets $port and $nginx_pid.
start_nginx() {
  local dir=$1 body=$2 workers=$3
  port=$(free_port)
  mkdir -p "$dir"
  cat >"$dir/nginx.conf" <<EOF
worker_processes $workers;
daemon off;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  keepalive_requests 1000000;
  keepalive_timeout 60s;
  client_body_temp_path $dir/body;
  proxy_temp_path $dir/proxy;
  fastcgi_temp_path $dir/fastcgi;
  uwsgi_temp_path $dir/uwsgi;
  scgi_temp_path $dir/scgi;
  server {
    listen 127.0.0.1:$port reuseport;
    location / {
      default_type application/json;
      return 200 '$body';
    }
  }
}
EOF
  nginx -p "$dir" -c "$dir/nginx.conf" 2>"$dir/stderr" &
  nginx_pid=$!
  wait_for_port "$port"
}
