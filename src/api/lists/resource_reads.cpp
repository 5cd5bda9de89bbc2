#include "api/lists/resource_reads.hpp"

#include "api/lists/page.hpp"
#include "api/lists/record.hpp"

namespace storeapi::api {

runtime::task<void> ResourceReads::list(Context& ctx) const { return serve_list(ctx, spec_, statements_); }

runtime::task<void> ResourceReads::get(Context& ctx) const { return serve_record(ctx, statements_.by_id()); }

}  // namespace storeapi::api
