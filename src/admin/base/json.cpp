#include "admin/base/json.hpp"

#include <cstdio>

namespace storeapi::admin {

JsonWriter& JsonWriter::value(double number) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f", number);
  return raw(text);
}

}  // namespace storeapi::admin
