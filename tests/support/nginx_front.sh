# Sourced by tests/tls_proxy_test.sh and bench/load/tls-proxy.sh: nginx with
# dist/nginx/storeapi.conf in front of a running storeapi, in a directory of its own.
#   start_nginx_front WORK_DIR SERVER_PORT   sets nginx_pid, proxy_port; writes WORK_DIR/cert.pem
# A throwaway certificate for 127.0.0.1 is made in WORK_DIR; nginx's pid file, logs and
# temp files stay there too. The caller stops nginx (kill "$nginx_pid").
start_nginx_front() {
  local work=$1 server_port=$2
  local source_root
  source_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
  openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 \
    -keyout "$work/key.pem" -out "$work/cert.pem" 2>/dev/null
  # A free port for nginx, asked of the kernel.
  proxy_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  sed -e "s|@UPSTREAM@|127.0.0.1:$server_port|" -e "s|@LISTEN@|127.0.0.1:$proxy_port|" -e "s|@SERVER_NAME@|127.0.0.1|" \
      -e "s|@CERTIFICATE@|$work/cert.pem|" -e "s|@CERTIFICATE_KEY@|$work/key.pem|" \
      "$source_root/dist/nginx/storeapi.conf" >"$work/storeapi.conf"
  if grep -qE '@[A-Z_]+@' "$work/storeapi.conf"; then
    echo "nginx front: a placeholder is left in the configuration" >&2
    return 1
  fi
  # The worker (not root) keeps request bodies over its buffer in WORK_DIR/body.
  chmod 711 "$work"
  cat >"$work/nginx.conf" <<NGINX
worker_processes 1;
pid $work/nginx.pid;
error_log $work/nginx-error.log;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path $work/body;
    proxy_temp_path $work/proxy;
    fastcgi_temp_path $work/fastcgi;
    uwsgi_temp_path $work/uwsgi;
    scgi_temp_path $work/scgi;
    include $work/storeapi.conf;
}
NGINX
  nginx -p "$work" -c "$work/nginx.conf" -g 'daemon off;' 2>>"$work/nginx-error.log" &
  nginx_pid=$!
  # Ready once it listens (30 s at most); no request is sent, so the server's access log
  # holds only the caller's.
  local _
  for _ in $(seq 300); do
    [[ -n $(ss -Htln "( sport = :$proxy_port )") ]] && return 0
    sleep 0.1
  done
  echo "nginx front: nginx did not start" >&2
  return 1
}
