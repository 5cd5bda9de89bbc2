#include "auth/store_body.hpp"

#include "json/writer.hpp"

namespace storeapi::auth {

std::string render_store_body(const StoreBodyFields& f) {
  std::string out;
  json::Writer w(out);
  w.begin_object();
  w.key("object").string("store");
  w.key("id").string(f.store_id);
  w.key("name").string(f.name);
  w.key("slug").string(f.slug);
  w.key("url").string(f.url);
  w.key("currency").string(f.currency);
  w.key("locale").string(f.locale);
  w.key("plan").string(f.plan);
  w.key("api_key").begin_object();
  w.key("id").string(f.key_id);
  w.key("name").string(f.key_name);
  w.key("prefix").string(f.key_prefix);
  w.key("scopes").begin_array();
  for (Scope s : all_scopes)
    if (f.scopes.granted(s)) w.string(scope_name(s));
  w.end_array();
  w.key("expires_at");
  if (f.expires_at) w.string(timefmt::format_ms_utc(*f.expires_at));
  else w.null();
  w.end_object();
  w.end_object();
  return out;
}

}  // namespace storeapi::auth
