#pragma once
// The e-mail templates: plain-text Mustache (https://mustache.github.io) per locale,
// kept in the source (templates_<locale>.cpp) so the binary needs no files. The data
// each template receives is the notification's `data` (contract: docs/DECISIONS.md)
// plus store_name and store_url.
#include <span>
#include <string_view>

namespace storeapi::dispatch {

struct MessageTemplate {
  std::string_view name;     // notifications.template
  std::string_view subject;  // one line
  std::string_view body;
};

// Words for enum values, e.g. {"fulfillment_status", "shipped", "versandt"}: a string
// field `x` (or `previous_x`) of the data whose domain is `x` also gets `x_label`.
struct Label {
  std::string_view domain;
  std::string_view value;
  std::string_view text;
};

struct LocaleTemplates {
  std::string_view locale;  // "en", "de"
  std::span<const MessageTemplate> templates;
  std::span<const Label> labels;
};

extern const LocaleTemplates kEnglishTemplates;
extern const LocaleTemplates kGermanTemplates;

struct FoundTemplate {
  const MessageTemplate* message = nullptr;
  const LocaleTemplates* locale = nullptr;  // where it was found (for its labels)
};

// The template `name` in `locale` ("de-AT"), else in its language ("de"), else in
// English; message is null when no locale has it.
FoundTemplate find_template(std::string_view locale, std::string_view name);

// The label of `value` in `domain`, or empty.
std::string_view find_label(const LocaleTemplates& locale, std::string_view domain, std::string_view value);

}  // namespace storeapi::dispatch
