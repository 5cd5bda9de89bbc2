#pragma once
// Renders a notification's template (templates.hpp) with its JSON data.
#include <stdexcept>
#include <string>
#include <string_view>

namespace storeapi::dispatch {

// Retrying cannot help: unknown template, data that is not a JSON object, a broken
// template. The notification fails at once.
struct RenderError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct StoreDetails {
  std::string name;
  std::string url;
};

struct RenderedText {
  std::string subject;  // one line, control characters replaced by spaces
  std::string body;     // lines end in '\n'
};

// The data seen by the template: the members of `data_json` (strings and numbers as
// text, arrays of scalars joined with ", ", nested objects and lists as they are; null
// and "" left out, so `{{#x}}` sections skip them), store_name and store_url unless the
// data has them, and `<field>_label` for enum values the locale has words for.
RenderedText render_notification(std::string_view template_name, std::string_view locale,
                                 std::string_view data_json, const StoreDetails& store);

}  // namespace storeapi::dispatch
