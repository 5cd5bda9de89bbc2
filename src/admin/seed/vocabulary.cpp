#include "admin/seed/vocabulary.hpp"

#include <array>

namespace storeapi::admin::seed {
namespace {

using sv = std::string_view;

constexpr std::array<sv, 24> kFirstNames = {
    "Anna", "Ben", "Clara", "David", "Elena", "Felix", "Grace", "Hugo", "Ines", "Jonas",
    "Katrin", "Liam", "Maya", "Noah", "Olivia", "Paul", "Quentin", "Rosa", "Samuel", "Tara",
    "Umar", "Vera", "William", "Zoe"};
constexpr std::array<sv, 24> kLastNames = {
    "Schmidt", "Miller", "Garcia", "Rossi", "Dubois", "Novak", "Jensen", "Silva",
    "Kowalski", "Brown", "Fischer", "Martin", "Weber", "Lopez", "Moreau", "Berg",
    "Costa", "Nakamura", "Olsen", "Patel", "Meyer", "Clarke", "Horvat", "Young"};
constexpr std::array<sv, 16> kStreets = {
    "Main Street", "Hauptstrasse", "Rue de la Paix", "Via Roma", "Calle Mayor", "Market Street",
    "Lindenallee", "King's Road", "Bahnhofstrasse", "Elm Avenue", "Park Lane", "Oak Street",
    "Gartenweg", "High Street", "Rue Victor Hugo", "Sunset Boulevard"};
constexpr std::array<Place, 12> kPlaces = {{
    {"Berlin", "Berlin", "10115", "Germany", "DE", "+49 30"},
    {"Munich", "Bavaria", "80331", "Germany", "DE", "+49 89"},
    {"Vienna", "Vienna", "1010", "Austria", "AT", "+43 1"},
    {"Zurich", "Zurich", "8001", "Switzerland", "CH", "+41 44"},
    {"Paris", "Ile-de-France", "75001", "France", "FR", "+33 1"},
    {"Madrid", "Community of Madrid", "28013", "Spain", "ES", "+34 91"},
    {"Milan", "Lombardy", "20121", "Italy", "IT", "+39 02"},
    {"Amsterdam", "North Holland", "1012", "Netherlands", "NL", "+31 20"},
    {"London", "Greater London", "SW1A 1AA", "United Kingdom", "GB", "+44 20"},
    {"New York", "NY", "10001", "United States", "US", "+1 212"},
    {"Austin", "TX", "73301", "United States", "US", "+1 512"},
    {"Toronto", "ON", "M5H 2N2", "Canada", "CA", "+1 416"},
}};
constexpr std::array<Payment, 5> kPayments = {{
    {"card", "stripe"},
    {"card", "adyen"},
    {"paypal", "paypal"},
    {"bank_transfer", "manual"},
    {"cash_on_delivery", "manual"},
}};
constexpr std::array<Meeting, 4> kMeetings = {{
    {"google_meet", "https://meet.google.com/"},
    {"zoom", "https://zoom.us/j/"},
    {"phone", "tel:+4930"},
    {"in_person", "https://maps.example.com/?q=studio-"},
}};
constexpr std::array<sv, 5> kCarriers = {"DHL", "UPS", "FedEx", "DPD", "Royal Mail"};
constexpr std::array<sv, 6> kTimezones = {"Europe/Berlin", "Europe/London", "Europe/Paris",
                                          "America/New_York", "America/Toronto", "Asia/Tokyo"};
constexpr std::array<sv, 5> kCustomerTags = {"vip", "newsletter", "wholesale", "returning", "b2b"};
constexpr std::array<sv, 8> kProductTags = {"new", "bestseller", "sale", "eco", "gift",
                                            "limited", "handmade", "bundle"};
constexpr std::array<Category, 6> kCategories = {{
    {"Apparel", "apparel"},
    {"Home & Living", "home-living"},
    {"Accessories", "accessories"},
    {"Digital Downloads", "digital-downloads"},
    {"Consulting", "consulting"},
    {"Events & Webinars", "events-webinars"},
}};

constexpr std::array<sv, 8> kPhysicalAdjectives = {"Linen", "Ceramic", "Organic Cotton", "Walnut",
                                                   "Recycled", "Wool", "Leather", "Bamboo"};
constexpr std::array<sv, 8> kPhysicalNouns = {"Shirt", "Mug", "Tote Bag", "Cutting Board",
                                              "Notebook", "Scarf", "Wallet", "Lamp"};
constexpr std::array<sv, 8> kPhysicalNounsDe = {"Hemd", "Tasse", "Tragetasche", "Schneidebrett",
                                                "Notizbuch", "Schal", "Geldboerse", "Lampe"};
constexpr std::array<sv, 4> kDigitalAdjectives = {"Complete", "Essential", "Advanced", "Starter"};
constexpr std::array<sv, 4> kDigitalNouns = {"Photo Presets", "E-Book", "Font Family", "Template Pack"};
constexpr std::array<sv, 4> kDigitalNounsDe = {"Foto-Presets", "E-Book", "Schriftfamilie", "Vorlagenpaket"};
constexpr std::array<sv, 4> kConsultingAdjectives = {"Brand", "Strategy", "Career", "Marketing"};
constexpr std::array<sv, 3> kConsultingNouns = {"Consultation", "Coaching Session", "Review"};
constexpr std::array<sv, 3> kConsultingNounsDe = {"Beratung", "Coaching-Sitzung", "Analyse"};
constexpr std::array<sv, 4> kWebinarAdjectives = {"Live", "Beginner", "Masterclass", "Expert"};
constexpr std::array<sv, 3> kWebinarNouns = {"Workshop", "Webinar", "Q&A"};
constexpr std::array<sv, 3> kWebinarNounsDe = {"Workshop", "Webinar", "Fragestunde"};

const std::array<ProductWords, 4> kProductWords = {{
    {kPhysicalAdjectives, kPhysicalNouns, kPhysicalNounsDe},
    {kDigitalAdjectives, kDigitalNouns, kDigitalNounsDe},
    {kConsultingAdjectives, kConsultingNouns, kConsultingNounsDe},
    {kWebinarAdjectives, kWebinarNouns, kWebinarNounsDe},
}};

}  // namespace

std::span<const std::string_view> first_names() { return kFirstNames; }
std::span<const std::string_view> last_names() { return kLastNames; }
std::span<const std::string_view> streets() { return kStreets; }
std::span<const Place> places() { return kPlaces; }
std::span<const Payment> payments() { return kPayments; }
std::span<const Meeting> meetings() { return kMeetings; }
std::span<const std::string_view> carriers() { return kCarriers; }
std::span<const std::string_view> timezones() { return kTimezones; }
std::span<const std::string_view> customer_tags() { return kCustomerTags; }
std::span<const std::string_view> product_tags() { return kProductTags; }
std::span<const Category> categories() { return kCategories; }
const ProductWords& product_words(std::size_t type) { return kProductWords.at(type); }

}  // namespace storeapi::admin::seed
