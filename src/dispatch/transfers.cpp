#include "dispatch/transfers.hpp"

#include "dispatch/excerpt.hpp"

#include <curl/curl.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <utility>

namespace storeapi::dispatch {

namespace {

// libcurl's defaults, stated: there is deliberately no way to turn verification off.
void verify_peer(CURL* e, const std::optional<std::string>& ca_file) {
  curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 1L);
  curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 2L);
  if (ca_file) {
    // Instead of the system's CAs, not besides them: Debian's libcurl also has a CA path.
    curl_easy_setopt(e, CURLOPT_CAINFO, ca_file->c_str());
    curl_easy_setopt(e, CURLOPT_CAPATH, static_cast<const char*>(nullptr));
  }
}

}  // namespace

struct Transfers::Transfer {
  std::uint64_t tag = 0;
  CURL* easy = nullptr;
  curl_slist* headers = nullptr;
  curl_slist* recipients = nullptr;
  std::string payload;  // the POST body or the mail being uploaded
  std::size_t uploaded = 0;
  std::string response_head;
  std::size_t response_bytes = 0;
  char error[CURL_ERROR_SIZE] = {};
  const net::DestinationPolicy* destinations = nullptr;  // for a POST
  std::string refusal;  // why an address was not connected to

  explicit Transfer(std::uint64_t t) : tag(t), easy(curl_easy_init()) {
    if (!easy) throw std::runtime_error("curl_easy_init failed");
    curl_easy_setopt(easy, CURLOPT_PRIVATE, this);
    curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, error);
    curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
  }
  ~Transfer() {
    curl_easy_cleanup(easy);
    curl_slist_free_all(headers);
    curl_slist_free_all(recipients);
  }

  // Keeps the first bytes of the answer and counts the rest.
  static std::size_t on_response(char* data, std::size_t size, std::size_t n, void* self) {
    auto* t = static_cast<Transfer*>(self);
    std::size_t bytes = size * n;
    std::size_t keep = std::min(bytes, kExcerptBytes - std::min(kExcerptBytes, t->response_head.size()));
    t->response_head.append(data, keep);
    t->response_bytes += bytes;
    return bytes;
  }

  // Every connection a POST makes is opened here, with the address name resolution gave:
  // a name that resolves to a refused address, now or later, gets no connection.
  static curl_socket_t open_socket(void* self, curlsocktype, curl_sockaddr* address) {
    auto* t = static_cast<Transfer*>(self);
    auto ip = net::ip_of(&address->addr, address->addrlen);
    auto refusal = ip ? t->destinations->refusal(*ip) : std::optional<std::string>("not an IP address");
    if (refusal) {
      t->refusal = *refusal;
      return CURL_SOCKET_BAD;
    }
    return ::socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
  }

  static std::size_t on_upload(char* buffer, std::size_t size, std::size_t n, void* self) {
    auto* t = static_cast<Transfer*>(self);
    std::size_t bytes = std::min(size * n, t->payload.size() - t->uploaded);
    std::memcpy(buffer, t->payload.data() + t->uploaded, bytes);
    t->uploaded += bytes;
    return bytes;
  }
};

Transfers::Transfers(TransferOptions options) : options_(std::move(options)), multi_(curl_multi_init()) {
  if (!multi_) throw std::runtime_error("curl_multi_init failed");
}

Transfers::~Transfers() {
  auto* multi = static_cast<CURLM*>(multi_);
  for (auto& [easy, transfer] : transfers_) curl_multi_remove_handle(multi, easy);
  transfers_.clear();
  curl_multi_cleanup(multi);
}

void Transfers::start(std::uint64_t tag, HttpPost post) {
  auto t = std::make_unique<Transfer>(tag);
  t->payload = std::move(post.body);
  for (const auto& header : post.headers) t->headers = curl_slist_append(t->headers, header.c_str());
  // No "Expect: 100-continue" round trip before larger bodies.
  t->headers = curl_slist_append(t->headers, "Expect:");
  CURL* e = t->easy;
  curl_easy_setopt(e, CURLOPT_URL, post.url.c_str());
  curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L);
  // Not the *_proxy variables' proxy either: the destination check must see the receiver's
  // own address, not a proxy's.
  curl_easy_setopt(e, CURLOPT_PROXY, "");
  t->destinations = &options_.webhook_destinations;
  curl_easy_setopt(e, CURLOPT_OPENSOCKETFUNCTION, &Transfer::open_socket);
  curl_easy_setopt(e, CURLOPT_OPENSOCKETDATA, t.get());
  verify_peer(e, options_.webhook_ca_file);
  curl_easy_setopt(e, CURLOPT_HTTPHEADER, t->headers);
  curl_easy_setopt(e, CURLOPT_POSTFIELDS, t->payload.data());
  curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(t->payload.size()));
  curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, static_cast<long>(post.timeout.count()));
  curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, &Transfer::on_response);
  curl_easy_setopt(e, CURLOPT_WRITEDATA, t.get());
  add(std::move(t));
}

void Transfers::start(std::uint64_t tag, MailSend mail) {
  auto t = std::make_unique<Transfer>(tag);
  t->payload = std::move(mail.message);
  t->recipients = curl_slist_append(nullptr, ("<" + mail.to + ">").c_str());
  CURL* e = t->easy;
  curl_easy_setopt(e, CURLOPT_URL, mail.smtp_url.c_str());
  curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "smtp,smtps");
  curl_easy_setopt(e, CURLOPT_USE_SSL, static_cast<long>(mail.require_tls ? CURLUSESSL_ALL : CURLUSESSL_NONE));
  verify_peer(e, options_.smtp_ca_file);
  curl_easy_setopt(e, CURLOPT_MAIL_FROM, ("<" + mail.from + ">").c_str());
  curl_easy_setopt(e, CURLOPT_MAIL_RCPT, t->recipients);
  curl_easy_setopt(e, CURLOPT_UPLOAD, 1L);
  curl_easy_setopt(e, CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(t->payload.size()));
  curl_easy_setopt(e, CURLOPT_READFUNCTION, &Transfer::on_upload);
  curl_easy_setopt(e, CURLOPT_READDATA, t.get());
  curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, static_cast<long>(mail.timeout.count()));
  add(std::move(t));
}

void Transfers::add(std::unique_ptr<Transfer> transfer) {
  CURLMcode rc = curl_multi_add_handle(static_cast<CURLM*>(multi_), transfer->easy);
  if (rc != CURLM_OK) throw std::runtime_error(std::string("curl_multi_add_handle: ") + curl_multi_strerror(rc));
  void* key = transfer->easy;
  transfers_.emplace(key, std::move(transfer));
}

void Transfers::wait(std::span<WatchedFd> watched, std::chrono::milliseconds timeout) {
  auto* multi = static_cast<CURLM*>(multi_);
  std::vector<curl_waitfd> extra(watched.size());
  for (std::size_t i = 0; i < watched.size(); ++i) extra[i] = {watched[i].fd, CURL_WAIT_POLLIN, 0};
  int ms = static_cast<int>(std::clamp<std::chrono::milliseconds::rep>(timeout.count(), 0, 60'000));
  CURLMcode rc = curl_multi_poll(multi, extra.data(), static_cast<unsigned>(extra.size()), ms, nullptr);
  if (rc != CURLM_OK) throw std::runtime_error(std::string("curl_multi_poll: ") + curl_multi_strerror(rc));
  for (std::size_t i = 0; i < watched.size(); ++i) watched[i].readable = (extra[i].revents & CURL_WAIT_POLLIN) != 0;

  int running = 0;
  rc = curl_multi_perform(multi, &running);
  if (rc != CURLM_OK) throw std::runtime_error(std::string("curl_multi_perform: ") + curl_multi_strerror(rc));

  int queued = 0;
  while (CURLMsg* msg = curl_multi_info_read(multi, &queued)) {
    if (msg->msg != CURLMSG_DONE) continue;
    CURL* easy = msg->easy_handle;
    auto it = transfers_.find(easy);
    if (it == transfers_.end()) continue;
    Transfer& t = *it->second;
    TransferResult result;
    result.tag = t.tag;
    result.completed = msg->data.result == CURLE_OK;
    result.curl_code = static_cast<int>(msg->data.result);
    curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &result.response_code);
    curl_off_t micros = 0;
    curl_easy_getinfo(easy, CURLINFO_TOTAL_TIME_T, &micros);
    result.latency = std::chrono::milliseconds(micros / 1000);
    if (!result.completed) result.error = t.error[0] ? t.error : curl_easy_strerror(msg->data.result);
    if (!result.completed && !t.refusal.empty() && msg->data.result == CURLE_COULDNT_CONNECT) {
      result.refused = true;
      result.error = "destination refused: " + t.refusal;
    }
    result.response_head = std::move(t.response_head);
    result.response_bytes = t.response_bytes;
    finished_.push_back(std::move(result));
    curl_multi_remove_handle(multi, easy);
    transfers_.erase(it);
  }
}

std::vector<TransferResult> Transfers::take_finished() { return std::exchange(finished_, {}); }

}  // namespace storeapi::dispatch
