#include "dispatch/templates.hpp"

#include <array>

namespace storeapi::dispatch {
namespace {

const LocaleTemplates* const kLocales[] = {&kEnglishTemplates, &kGermanTemplates};

const MessageTemplate* find_in(const LocaleTemplates& locale, std::string_view name) {
  for (const auto& t : locale.templates)
    if (t.name == name) return &t;
  return nullptr;
}

}  // namespace

FoundTemplate find_template(std::string_view locale, std::string_view name) {
  std::string_view language = locale.substr(0, locale.find('-'));
  for (std::string_view wanted : std::array{locale, language, std::string_view("en")}) {
    for (const LocaleTemplates* candidate : kLocales) {
      if (candidate->locale != wanted) continue;
      if (const MessageTemplate* message = find_in(*candidate, name)) return {message, candidate};
    }
  }
  return {};
}

std::string_view find_label(const LocaleTemplates& locale, std::string_view domain, std::string_view value) {
  for (const auto& label : locale.labels)
    if (label.domain == domain && label.value == value) return label.text;
  return {};
}

}  // namespace storeapi::dispatch
