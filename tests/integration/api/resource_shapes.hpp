#pragma once
// The spec's resources ("Resources and their fields") as field tables, with DESIGN's
// formats, and checks of whole records, nested objects included. Each appends every
// problem found to `problems`, prefixed with `where`.
#include <simdjson.h>

#include <string>
#include <vector>

namespace storeapi::testing {

void check_order(simdjson::dom::element order, const std::string& where, std::vector<std::string>& problems);
void check_product(simdjson::dom::element product, const std::string& where, std::vector<std::string>& problems);
void check_booking(simdjson::dom::element booking, const std::string& where, std::vector<std::string>& problems);
void check_customer(simdjson::dom::element customer, const std::string& where, std::vector<std::string>& problems);
// {"object":"list","data":[…],"has_more":…,"next_cursor":…}; not the records.
void check_list_envelope(simdjson::dom::element list, std::vector<std::string>& problems);

}  // namespace storeapi::testing
