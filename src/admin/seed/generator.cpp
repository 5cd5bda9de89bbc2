#include "admin/seed/generator.hpp"

#include "admin/base/errors.hpp"
#include "admin/base/json.hpp"
#include "admin/seed/random.hpp"
#include "admin/seed/vocabulary.hpp"
#include "common/crypto.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstring>

namespace storeapi::admin::seed {
namespace {

using sv = std::string_view;

constexpr std::uint64_t kContentSeed = 0x5eed'2026'0001'0001ULL;
constexpr Micros kDay = 86'400'000'000LL;
constexpr Micros kMinute = 60'000'000LL;
constexpr Micros kWindowStart = kReferenceTime - 730 * kDay;

// Value lists in the order `Random::cover` walks them: the first entries pair up sensibly
// (an approved physical product, a featured consulting one, ...).
constexpr std::array<sv, 4> kTypes = {"physical", "digital", "consulting", "webinar"};
constexpr std::array<sv, 7> kProductStatuses = {"approved", "deleted", "featured", "archived",
                                                "in_review", "draft", "pending"};
constexpr std::array<sv, 9> kOrderStatuses = {"completed", "pending", "confirmed", "captured",
                                              "pending_payment", "canceled", "refunded", "failed",
                                              "draft"};
constexpr std::array<sv, 9> kFulfillments = {"delivered", "pending", "confirmed", "processing",
                                             "ready", "canceled", "returned", "shipped", "fulfilled"};
constexpr std::array<sv, 4> kChannels = {"storefront", "marketplace", "platform", "dashboard"};
constexpr std::array<sv, 4> kBookingStatuses = {"accepted", "pending", "canceled", "initiated"};
constexpr std::array<sv, 4> kSources = {"storefront", "import", "dashboard", "api"};
constexpr std::array<sv, 4> kEmailStatuses = {"subscribed", "unsubscribed", "bounced", "pending"};
constexpr std::array<sv, 3> kDiscounts = {"", "percentage", "fixed"};
constexpr std::array<sv, 4> kSizes = {"S", "M", "L", "XL"};
constexpr std::array<sv, 4> kColors = {"Navy", "Sand", "Forest", "Charcoal"};
constexpr std::array<sv, 2> kFormats = {"Personal license", "Commercial license"};
constexpr std::array<int, 3> kDurations = {30, 60, 90};

enum Type : std::size_t { physical, digital, consulting, webinar };

std::uint64_t id_seed(const std::string& store_id) {
  auto digest = crypto::sha256(store_id);
  std::uint64_t seed = 0;
  std::memcpy(&seed, digest.data(), sizeof seed);
  return seed;
}

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string slugify(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (std::isalnum(static_cast<unsigned char>(c))) out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    else if (!out.empty() && out.back() != '-') out.push_back('-');
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out;
}

std::string date_of(Micros t) {
  auto days = std::chrono::sys_days{std::chrono::days{t / kDay}};
  std::chrono::year_month_day ymd{days};
  char buf[16];
  std::snprintf(buf, sizeof buf, "%04d-%02u-%02u", static_cast<int>(ymd.year()),
                static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()));
  return buf;
}

class Generator {
 public:
  Generator(const std::string& store_id, const std::string& locale, const SeedSizes& sizes)
      : ids_(id_seed(store_id)), locale_(locale), sizes_(sizes) {}

  SeedData run() {
    make_categories();
    for (long i = 0; i < sizes_.products; ++i) make_product(i);
    collect_orderable();
    make_customers();
    assign_bookings();
    make_orders();
    make_bookings();
    make_stock_movements();
    return std::move(data_);
  }

 private:
  std::string second_locale() const { return locale_.rfind("de", 0) == 0 ? "en" : "de"; }

  void make_categories() {
    for (const Category& c : categories())
      data_.categories.push_back({ids_.uuid(), std::string(c.name), std::string(c.slug), kWindowStart - 30 * kDay});
  }

  std::optional<std::string> category_for(std::size_t type) {
    if (rnd_.chance(0.1)) return std::nullopt;
    std::size_t index = type == physical ? rnd_.index(3) : type + 2;  // see categories()
    return data_.categories[index].id;
  }

  void make_product(long i) {
    auto type = rnd_.cover(i, {55, 20, 15, 10});
    auto status = kProductStatuses[rnd_.cover(i, {55, 6, 12, 6, 5, 12, 4})];
    const ProductWords& words = product_words(type);
    auto adjective = rnd_.pick(words.adjectives);
    auto noun = rnd_.index(words.nouns.size());
    std::string name_en = std::string(adjective) + " " + std::string(words.nouns[noun]);
    std::string name_de = std::string(adjective) + " " + std::string(words.nouns_translated[noun]);
    bool german = second_locale() == "en";

    ProductRow p;
    p.id = ids_.uuid();
    p.name = german ? name_de : name_en;
    p.slug = slugify(name_en) + "-" + std::to_string(i + 1);
    p.type = std::string(kTypes[type]);
    p.status = std::string(status);
    p.category_id = category_for(type);
    auto tags = product_tags();
    for (std::size_t t = 0, n = rnd_.index(4); t < n; ++t) {
      std::string tag(tags[(i + static_cast<long>(t) * 3) % static_cast<long>(tags.size())]);
      if (std::find(p.tags.begin(), p.tags.end(), tag) == p.tags.end()) p.tags.push_back(tag);
    }
    for (int k = 1, n = type == physical ? static_cast<int>(rnd_.between(1, 3)) : 1; k <= n; ++k)
      p.images.push_back("https://cdn.example.com/products/" + p.slug + "-" + std::to_string(k) + ".jpg");
    p.translations.push_back({locale_, p.name, description(p.name, type, german)});
    p.translations.push_back({second_locale(), german ? name_en : name_de,
                              description(german ? name_en : name_de, type, !german)});
    p.created_at = rnd_.time_between(kWindowStart, kReferenceTime - 30 * kDay);
    p.updated_at = rnd_.time_between(p.created_at, kReferenceTime);
    if (p.status == "deleted") p.deleted_at = p.updated_at;
    data_.products.push_back(std::move(p));
    make_variants(data_.products.size() - 1, type);
  }

  static std::string description(const std::string& name, std::size_t type, bool german) {
    static constexpr std::array<sv, 4> en = {
        " is made to last and ships within two business days.",
        " is delivered as an instant download after purchase.",
        " is a one-to-one video session with an experienced consultant.",
        " is a live online session with time for questions."};
    static constexpr std::array<sv, 4> de = {
        " ist langlebig verarbeitet und wird innerhalb von zwei Werktagen versendet.",
        " steht nach dem Kauf sofort zum Download bereit.",
        " ist eine persoenliche Videositzung mit einer erfahrenen Beraterin.",
        " ist eine Live-Sitzung mit Zeit fuer Fragen."};
    return name + std::string(german ? de[type] : en[type]);
  }

  Cents price_for(std::size_t type) {
    static constexpr std::array<std::array<int, 2>, 4> units = {{{9, 149}, {4, 79}, {60, 300}, {19, 149}}};
    static constexpr std::array<int, 3> endings = {0, 90, 99};
    Cents whole = rnd_.between(units[type][0], units[type][1]) * 100;
    return whole + endings[rnd_.index(endings.size())];
  }

  void make_variants(std::size_t product, std::size_t type) {
    const ProductRow& p = data_.products[product];
    static constexpr std::array<std::array<int, 2>, 4> counts = {{{1, 4}, {1, 2}, {1, 3}, {1, 1}}};
    int n = static_cast<int>(rnd_.between(counts[type][0], counts[type][1]));
    // One product with several variants always gets a deleted one, so small seeds have it.
    bool delete_last = n > 1 && (!deleted_variant_made_ || rnd_.chance(0.12));
    deleted_variant_made_ = deleted_variant_made_ || delete_last;
    for (int k = 0; k < n; ++k) {
      VariantRow v{};
      v.id = ids_.uuid();
      v.product = product;
      v.position = k;
      v.sku = std::string(p.type.substr(0, 3)) + "-" + std::to_string(product + 1) + "-" + std::to_string(k + 1);
      for (char& c : v.sku) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      name_variant(v, type, k, n);
      if (type == physical && rnd_.chance(0.7)) v.barcode = "40" + rnd_.digits(11);
      v.price = price_for(type);
      set_discount(v);
      bool tracked = type == webinar || (type == physical && rnd_.chance(0.85));
      if (tracked) {
        v.stock = rnd_.chance(0.1) ? 0 : static_cast<int>(rnd_.between(1, type == webinar ? 100 : 250));
        v.low_stock_threshold = rnd_.chance(0.5) ? 5 : 10;
      }
      if (type == physical && rnd_.chance(0.5)) v.image_url = p.images.front();
      v.created_at = p.created_at;
      v.updated_at = rnd_.time_between(v.created_at, kReferenceTime);
      if (delete_last && k == n - 1) v.deleted_at = v.updated_at;
      data_.variants.push_back(std::move(v));
    }
  }

  void name_variant(VariantRow& v, std::size_t type, int k, int n) {
    switch (type) {
      case physical:
        v.option1 = std::string(kSizes[static_cast<std::size_t>(k) % kSizes.size()]);
        if (n > 1) v.option2 = std::string(rnd_.pick(std::span<const sv>(kColors)));
        v.title = n > 1 ? *v.option1 + " / " + *v.option2 : "Default";
        break;
      case digital:
        v.option1 = std::string(kFormats[static_cast<std::size_t>(k)]);
        v.title = *v.option1;
        break;
      case consulting:
        v.duration_minutes = kDurations[static_cast<std::size_t>(k)];
        v.option1 = std::to_string(v.duration_minutes) + " min";
        v.title = std::to_string(v.duration_minutes) + " minutes";
        break;
      default:
        v.title = "Standard ticket";
    }
  }

  // Coverage first over all variants: none, percentage, fixed.
  void set_discount(VariantRow& v) {
    auto kind = rnd_.cover(static_cast<long>(data_.variants.size()), {70, 15, 15});
    if (kind == 2 && v.price < 200) kind = 1;  // a fixed discount must stay below the price
    if (kind == 1) v.discount_value = rnd_.between(5, 50) * 100;  // 5.00 to 50.00 percent
    if (kind == 2) v.discount_value = rnd_.between(1, v.price / 200) * 100;
    if (kind != 0) v.discount_type = std::string(kDiscounts[kind]);
  }

  static Cents discount_amount(const VariantRow& v) {
    if (!v.discount_type) return 0;
    if (*v.discount_type == "fixed") return v.discount_value;
    return (v.price * v.discount_value + 5000) / 10000;  // percent in hundredths, half up
  }

  // Variants an order may contain: live variants of products that are (or were) on sale.
  void collect_orderable() {
    for (std::size_t i = 0; i < data_.variants.size(); ++i) {
      const VariantRow& v = data_.variants[i];
      const std::string& status = data_.products[v.product].status;
      if (v.deleted_at || (status != "approved" && status != "featured" && status != "archived")) continue;
      orderable_.push_back(i);
      if (data_.products[v.product].type == "consulting") consulting_.push_back(i);
    }
    if (orderable_.empty())  // tiny seeds: fall back to whatever exists
      for (std::size_t i = 0; i < data_.variants.size(); ++i) orderable_.push_back(i);
    if (consulting_.empty())
      for (std::size_t i = 0; i < data_.variants.size(); ++i)
        if (data_.products[data_.variants[i].product].type == "consulting") consulting_.push_back(i);
  }

  void make_customers() {
    // Sorted creation times: customer 0 exists from the start, so every order has a
    // customer created before it.
    std::vector<Micros> created(static_cast<std::size_t>(sizes_.customers));
    for (auto& t : created) t = rnd_.time_between(kWindowStart, kReferenceTime - kDay);
    std::sort(created.begin(), created.end());
    if (!created.empty()) created.front() = kWindowStart;
    static constexpr std::array<sv, 3> domains = {"example.com", "example.org", "example.net"};
    for (long i = 0; i < sizes_.customers; ++i) {
      CustomerRow c;
      c.id = ids_.uuid();
      c.home.first_name = std::string(rnd_.pick(first_names()));
      c.home.last_name = std::string(rnd_.pick(last_names()));
      c.home.place = rnd_.index(places().size());
      auto house = rnd_.between(1, 220);
      c.home.line1 = std::to_string(house) + " " + std::string(rnd_.pick(streets()));
      if (rnd_.chance(0.3)) c.home.line2 = "Apt " + std::to_string(rnd_.between(1, 40));
      c.name = c.home.first_name + " " + c.home.last_name;
      c.email = lower(c.home.first_name + "." + c.home.last_name) + std::to_string(i + 1) + "@" +
                std::string(domains[rnd_.index(domains.size())]);
      c.phone = std::string(places()[c.home.place].phone_prefix) + " " + rnd_.digits(7);
      c.source = std::string(kSources[rnd_.cover(i, {60, 15, 15, 10})]);
      c.email_status = std::string(kEmailStatuses[rnd_.cover(i, {55, 15, 5, 25})]);
      for (std::size_t t = 0, n = rnd_.index(3); t < n; ++t) {
        std::string tag(customer_tags()[(static_cast<std::size_t>(i) + t * 2) % customer_tags().size()]);
        if (std::find(c.tags.begin(), c.tags.end(), tag) == c.tags.end()) c.tags.push_back(tag);
      }
      c.created_at = created[static_cast<std::size_t>(i)];
      c.updated_at = rnd_.time_between(c.created_at, kReferenceTime);
      if (c.email_status == "unsubscribed") c.unsubscribed_at = c.updated_at;
      data_.customers.push_back(std::move(c));
    }
  }

  // Each booking is made through an order that contains its consulting variant.
  void assign_bookings() {
    if (sizes_.bookings == 0) return;
    if (sizes_.orders == 0) throw CommandError("bookings need orders: pass --orders 1 or more");
    if (consulting_.empty())
      throw CommandError("bookings need a consulting product: pass --products 3 or more");
    forced_.resize(static_cast<std::size_t>(sizes_.orders));
    for (long b = 0; b < sizes_.bookings; ++b) {
      std::size_t order = sizes_.bookings <= sizes_.orders
                              ? static_cast<std::size_t>(b * sizes_.orders / sizes_.bookings)
                              : static_cast<std::size_t>(b % sizes_.orders);
      std::size_t variant = consulting_[rnd_.index(consulting_.size())];
      auto& list = forced_[order];
      if (std::find(list.begin(), list.end(), variant) == list.end()) list.push_back(variant);
      booking_slots_.push_back({order, variant});
    }
  }

  std::string address_json(const HomeAddress& home, std::size_t place_index, const std::string& phone) {
    const Place& place = places()[place_index];
    JsonWriter json;
    json.begin_object()
        .field("first_name", home.first_name)
        .field("last_name", home.last_name)
        .field("phone", phone)
        .field("line1", home.line1)
        .field("line2", home.line2)
        .field("city", place.city)
        .field("state", place.state)
        .field("postal_code", place.postal_code)
        .field("country", place.country)
        .field("country_code", place.country_code)
        .end_object();
    return json.str();
  }

  std::string fulfillment_after(std::string_view status) {
    if (status == "canceled" || status == "failed") return rnd_.chance(0.8) ? "canceled" : "pending";
    if (status == "draft" || status == "pending" || status == "pending_payment") return "pending";
    if (status == "refunded") return rnd_.chance(0.7) ? "returned" : "canceled";
    return std::string(kFulfillments[rnd_.weighted({25, 8, 5, 5, 3, 0, 0, 12, 42})]);
  }

  void make_orders() {
    if (sizes_.orders == 0) return;
    if (data_.customers.empty()) throw CommandError("orders need customers: pass --customers 1 or more");
    if (orderable_.empty()) throw CommandError("orders need products: pass --products 1 or more");
    std::vector<Micros> created(static_cast<std::size_t>(sizes_.orders));
    for (auto& t : created) t = rnd_.time_between(kWindowStart, kReferenceTime - kMinute);
    std::sort(created.begin(), created.end());
    std::vector<Micros> customer_created;
    for (const auto& c : data_.customers) customer_created.push_back(c.created_at);

    for (long i = 0; i < sizes_.orders; ++i) {
      OrderRow o{};
      o.id = ids_.uuid();
      o.order_number = 1001 + i;
      o.created_at = created[static_cast<std::size_t>(i)];
      auto known = std::upper_bound(customer_created.begin(), customer_created.end(), o.created_at) -
                   customer_created.begin();
      o.customer = rnd_.index(static_cast<std::size_t>(known));
      o.status = std::string(kOrderStatuses[rnd_.cover(i, {40, 6, 15, 15, 6, 6, 5, 3, 4})]);
      o.fulfillment_status = i < static_cast<long>(kFulfillments.size())
                                 ? std::string(kFulfillments[static_cast<std::size_t>(i)])
                                 : fulfillment_after(o.status);
      o.channel = std::string(kChannels[rnd_.cover(i, {70, 15, 5, 10})]);
      bool physical_goods = add_line_items(data_.orders.size(), i);
      o.shipping_total = physical_goods ? std::array<Cents, 4>{0, 490, 990, 1490}[rnd_.index(4)] : 0;
      o.subtotal = 0;
      for (std::size_t li = first_line_item_; li < data_.line_items.size(); ++li) o.subtotal += data_.line_items[li].total;
      Cents rate = std::array<Cents, 4>{0, 700, 1900, 2000}[rnd_.index(4)];  // basis points
      o.tax_total = (o.subtotal * rate + 5000) / 10000;
      o.total = o.subtotal + o.shipping_total + o.tax_total;
      const Payment& pay = rnd_.pick(payments());
      o.payment_method = std::string(pay.method);
      o.payment_gateway = std::string(pay.gateway);
      auto days_later = rnd_.between(0, 30);
      auto minutes_later = rnd_.between(0, 1439);
      o.updated_at = std::min(kReferenceTime, o.created_at + days_later * kDay + minutes_later * kMinute);
      if (o.status == "captured" || o.status == "completed" || o.status == "confirmed" || o.status == "refunded")
        o.paid_at = std::min(o.updated_at, o.created_at + rnd_.between(1, 120) * kMinute);
      const std::string& f = o.fulfillment_status;
      if ((f == "shipped" || f == "delivered" || f == "fulfilled" || f == "returned") && rnd_.chance(0.9)) {
        o.tracking_carrier = std::string(rnd_.pick(carriers()));
        o.tracking_number = "1Z" + rnd_.digits(16);
      }
      const CustomerRow& c = data_.customers[o.customer];
      o.billing_address = address_json(c.home, c.home.place, c.phone);
      o.shipping_address = rnd_.chance(0.8) ? o.billing_address
                                            : address_json(c.home, rnd_.index(places().size()), c.phone);
      data_.orders.push_back(std::move(o));
    }
  }

  // Adds the order's line items (its bookings' consulting variants first); returns
  // whether any of them ships.
  bool add_line_items(std::size_t order, long i) {
    first_line_item_ = data_.line_items.size();
    std::vector<std::size_t> chosen = forced_.empty() ? std::vector<std::size_t>{} : forced_[static_cast<std::size_t>(i)];
    std::size_t wanted = std::max<std::size_t>(chosen.size(), rnd_.weighted({0, 50, 30, 15, 5}));
    for (int attempt = 0; chosen.size() < wanted && attempt < 8; ++attempt) {
      std::size_t v = orderable_[rnd_.index(orderable_.size())];
      if (std::find(chosen.begin(), chosen.end(), v) == chosen.end()) chosen.push_back(v);
    }
    bool ships = false;
    for (std::size_t k = 0; k < chosen.size(); ++k) {
      const VariantRow& v = data_.variants[chosen[k]];
      bool is_physical = data_.products[v.product].type == "physical";
      ships = ships || is_physical;
      LineItemRow li{};
      li.id = ids_.uuid();
      li.order = order;
      li.variant = chosen[k];
      li.position = static_cast<int>(k);
      li.quantity = is_physical ? static_cast<int>(rnd_.weighted({0, 70, 20, 10})) : 1;
      li.unit_price = v.price;
      li.unit_discount = discount_amount(v);
      li.total = li.quantity * (li.unit_price - li.unit_discount);
      data_.line_items.push_back(li);
    }
    return ships;
  }

  void make_bookings() {
    for (long b = 0; b < static_cast<long>(booking_slots_.size()); ++b) {
      auto [order, variant] = booking_slots_[static_cast<std::size_t>(b)];
      const OrderRow& o = data_.orders[order];
      BookingRow r{};
      r.id = ids_.uuid();
      r.order = order;
      r.variant = variant;
      r.status = std::string(kBookingStatuses[rnd_.cover(b, {45, 30, 15, 10})]);
      r.date = date_of(o.created_at + rnd_.between(1, 45) * kDay);
      auto hour = static_cast<int>(rnd_.between(8, 17));
      int minute = rnd_.chance(0.5) ? 0 : 30;
      char time[8];
      std::snprintf(time, sizeof time, "%02d:%02d", hour, minute);
      r.time = time;
      r.timezone = std::string(rnd_.pick(timezones()));
      r.duration_minutes = data_.variants[variant].duration_minutes;
      const Meeting& m = rnd_.pick(meetings());
      r.meeting_method = std::string(m.method);
      r.meeting_link = std::string(m.link_base) + rnd_.digits(10);
      r.created_at = o.created_at;
      r.updated_at = std::min(kReferenceTime, r.created_at + rnd_.between(0, 10) * kDay);
      data_.bookings.push_back(std::move(r));
    }
  }

  void make_stock_movements() {
    for (std::size_t i = 0; i < data_.variants.size(); ++i)
      if (data_.variants[i].stock) data_.stock_movements.push_back({ids_.uuid(), i, data_.variants[i].created_at});
  }

  Random rnd_{kContentSeed};
  Random ids_;
  std::string locale_;
  SeedSizes sizes_;
  SeedData data_;
  bool deleted_variant_made_ = false;
  std::vector<std::size_t> orderable_, consulting_;
  std::vector<std::vector<std::size_t>> forced_;  // per order: consulting variants it must hold
  std::vector<std::pair<std::size_t, std::size_t>> booking_slots_;  // (order, variant)
  std::size_t first_line_item_ = 0;
};

}  // namespace

SeedData generate(const std::string& store_id, const std::string& locale, const SeedSizes& sizes) {
  return Generator(store_id, locale, sizes).run();
}

}  // namespace storeapi::admin::seed
