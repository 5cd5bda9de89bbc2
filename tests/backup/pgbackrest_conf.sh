# dist/pgbackrest/pgbackrest.conf as a test's one-host stanza `storeapi` needs it (sourced;
# the caller defines `fail`): the repository, spool, log and lock under DIR, a cipher
# passphrase of its own, the stanza's cluster at PG_PATH on PORT through SOCKET_DIR, the
# example stanza pod-eu2 left out; everything else as shipped.
#   write_pgbackrest_conf FILE DIR PG_PATH PORT SOCKET_DIR
write_pgbackrest_conf() {
  local file=$1 dir=$2 pg_path=$3 port=$4 socket_dir=$5
  sed -e "s|^repo1-path=.*|repo1-path=$dir/repo|" \
      -e "s|^repo1-cipher-pass=.*|repo1-cipher-pass=$(openssl rand -base64 48)|" \
      -e "s|^spool-path=.*|spool-path=$dir/spool\nlog-path=$dir/pgbackrest-log\nlock-path=$dir/pgbackrest-lock|" \
      -e 's|^log-level-file=.*|log-level-file=off|' -e 's|^log-level-console=.*|log-level-console=warn|' \
      -e '/^\[pod-eu2\]/,$d' \
      -e "s|^pg1-path=.*|pg1-path=$pg_path\npg1-socket-path=$socket_dir|" -e "s|^pg1-port=.*|pg1-port=$port|" \
      "$source_root/dist/pgbackrest/pgbackrest.conf" >"$file"
  local setting
  for setting in "repo1-path=$dir/repo" "spool-path=$dir/spool" "pg1-path=$pg_path" "pg1-port=$port" \
                 'repo1-cipher-type=aes-256-cbc' 'archive-async=y' 'delta=y' '\[storeapi\]'; do
    grep -q "^$setting\$" "$file" || fail "dist/pgbackrest/pgbackrest.conf changed: cannot set $setting"
  done
  chmod 644 "$file"
}
