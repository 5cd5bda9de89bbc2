#include "dispatch/render.hpp"

#include "dispatch/templates.hpp"

#include <kainjow/mustache.hpp>
#include <simdjson.h>

namespace storeapi::dispatch {
namespace {

namespace mustache = kainjow::mustache;

constexpr std::string_view kPreviousPrefix = "previous_";

bool is_scalar(simdjson::dom::element value) {
  return !value.is_array() && !value.is_object();
}

// A JSON value as text for the template; nullopt for null and "".
std::optional<std::string> scalar_text(simdjson::dom::element value) {
  if (value.is_null()) return std::nullopt;
  if (value.is_string()) {
    std::string_view text = value.get_string().value();
    if (text.empty()) return std::nullopt;
    return std::string(text);
  }
  return simdjson::minify(value);  // numbers keep their JSON spelling; true / false
}

std::optional<mustache::data> to_data(simdjson::dom::element value);

mustache::data object_data(simdjson::dom::object object) {
  mustache::data out{mustache::data::type::object};
  for (auto [key, value] : object)
    if (auto converted = to_data(value)) out.set(std::string(key), *converted);
  return out;
}

std::optional<mustache::data> to_data(simdjson::dom::element value) {
  if (value.is_object()) return object_data(value.get_object().value());
  if (value.is_array()) {
    simdjson::dom::array items = value.get_array().value();
    bool scalars = true;
    for (auto item : items) scalars = scalars && is_scalar(item);
    if (scalars) {
      std::string joined;
      for (auto item : items) {
        auto text = scalar_text(item);
        if (!text) continue;
        if (!joined.empty()) joined += ", ";
        joined += *text;
      }
      if (joined.empty()) return std::nullopt;
      return mustache::data(joined);
    }
    mustache::data list{mustache::data::type::list};
    for (auto item : items)
      if (auto converted = to_data(item)) list.push_back(*converted);
    return list;
  }
  if (auto text = scalar_text(value)) return mustache::data(*text);
  return std::nullopt;
}

// `<field>_label` for each top-level string field whose value (or, for previous_<field>,
// whose field) has a word in the locale.
void add_labels(mustache::data& data, simdjson::dom::object object, const LocaleTemplates& locale) {
  for (auto [key, value] : object) {
    if (!value.is_string()) continue;
    std::string_view domain = key;
    if (domain.starts_with(kPreviousPrefix)) domain.remove_prefix(kPreviousPrefix.size());
    std::string_view label = find_label(locale, domain, value.get_string().value());
    if (!label.empty()) data.set(std::string(key) + "_label", std::string(label));
  }
}

std::string render(std::string_view text, const mustache::data& data, std::string_view template_name) {
  mustache::mustache tmpl{std::string(text)};
  tmpl.set_custom_escape([](const std::string& s) { return s; });  // plain text, not HTML
  std::string out = tmpl.render(data);
  if (!tmpl.is_valid())
    throw RenderError("template " + std::string(template_name) + ": " + tmpl.error_message());
  return out;
}

// A Subject holds one line: data (e.g. a customer's name) must not add header lines.
std::string one_line(std::string text) {
  for (char& c : text)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  return text;
}

}  // namespace

RenderedText render_notification(std::string_view template_name, std::string_view locale,
                                 std::string_view data_json, const StoreDetails& store) {
  FoundTemplate found = find_template(locale, template_name);
  if (!found.message) throw RenderError("no template named '" + std::string(template_name) + "'");

  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (parser.parse(simdjson::padded_string(data_json)).get(root) || !root.is_object())
    throw RenderError("notification data is not a JSON object");
  simdjson::dom::object object = root.get_object().value();

  mustache::data data = object_data(object);
  if (!data.get("store_name")) data.set("store_name", store.name);
  if (!data.get("store_url")) data.set("store_url", store.url);
  add_labels(data, object, *found.locale);

  return {one_line(render(found.message->subject, data, template_name)),
          render(found.message->body, data, template_name)};
}

}  // namespace storeapi::dispatch
