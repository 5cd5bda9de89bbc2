#include "db/pod_addresses.hpp"

#include <iterator>

namespace storeapi::db {

const Statement kPodAddresses{
    "pod_addresses",
    "select p.name, p.url, r.replica_url"
    "  from pods p left join lateral unnest(p.replica_urls) with ordinality as r(replica_url, n) on true"
    " order by p.name, r.n",
    {}, PodAddressRow::columns};

std::optional<PodAddress> PodAddressBook::find(std::string_view name) const {
  std::lock_guard lock(mutex_);
  const auto it = pods_.find(name);
  if (it == pods_.end()) return std::nullopt;
  return it->second;
}

std::vector<std::string> PodAddressBook::names() const {
  std::lock_guard lock(mutex_);
  std::vector<std::string> out;
  for (const auto& [name, address] : pods_) out.push_back(name);
  return out;
}

bool PodAddressBook::replace(const Result& pods) {
  if (!pods.ok() || pods.columns() != static_cast<int>(std::size(PodAddressRow::columns))) return false;
  std::map<std::string, PodAddress, std::less<>> read{{std::string(kMainPod), PodAddress{}}};
  for (int i = 0; i < pods.rows(); ++i) {
    const auto row = pods.row<PodAddressRow>(i);
    PodAddress& address = read[std::string(row.name())];
    if (!row.is_null(PodAddressRow::Index::url)) address.url = row.url();
    if (!row.is_null(PodAddressRow::Index::replica_url)) address.replica_urls.emplace_back(row.replica_url());
  }
  std::lock_guard lock(mutex_);
  pods_ = std::move(read);
  return true;
}

}  // namespace storeapi::db
