#pragma once
// Word lists the seed draws realistic values from.
#include <span>
#include <string_view>

namespace storeapi::admin::seed {

struct Place {
  std::string_view city, state, postal_code, country, country_code, phone_prefix;
};

struct Payment {
  std::string_view method, gateway;
};

struct Meeting {
  std::string_view method, link_base;  // link = link_base + a generated code
};

struct Category {
  std::string_view name, slug;
};

// Names of products of one type: "<adjective> <noun>" in the store locale, with the
// noun's translation for the second locale.
struct ProductWords {
  std::span<const std::string_view> adjectives;
  std::span<const std::string_view> nouns;
  std::span<const std::string_view> nouns_translated;
};

std::span<const std::string_view> first_names();
std::span<const std::string_view> last_names();
std::span<const std::string_view> streets();
std::span<const Place> places();
std::span<const Payment> payments();
std::span<const Meeting> meetings();
std::span<const std::string_view> carriers();
std::span<const std::string_view> timezones();
std::span<const std::string_view> customer_tags();
std::span<const std::string_view> product_tags();
std::span<const Category> categories();
// Indexed like the product types: physical, digital, consulting, webinar.
const ProductWords& product_words(std::size_t type);

}  // namespace storeapi::admin::seed
