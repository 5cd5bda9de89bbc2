#include "dispatch/notification_mail.hpp"

#include "dispatch/render.hpp"

#include <curl/curl.h>

#include <memory>

namespace storeapi::dispatch {
namespace {

// The host of the store's URL, by curl's URL parser.
std::optional<std::string> url_host(const std::string& url) {
  std::unique_ptr<CURLU, decltype(&curl_url_cleanup)> handle(curl_url(), curl_url_cleanup);
  char* host = nullptr;
  if (!handle || curl_url_set(handle.get(), CURLUPART_URL, url.c_str(), 0) != CURLUE_OK ||
      curl_url_get(handle.get(), CURLUPART_HOST, &host, 0) != CURLUE_OK)
    return std::nullopt;
  std::string out(host);
  curl_free(host);
  return out;
}

std::string sender_address(const NotificationJob& job, const std::optional<std::string>& smtp_from) {
  if (smtp_from) return *smtp_from;
  auto host = url_host(job.store_url);
  if (!host) throw RenderError("no sender address: the store URL has no host; set STOREAPI_SMTP_FROM");
  return "no-reply@" + *host;
}

std::string domain_of(const std::string& address) { return address.substr(address.find('@') + 1); }

}  // namespace

Mail notification_mail(const NotificationJob& job, const std::optional<std::string>& smtp_from,
                       std::int64_t now_unix_seconds) {
  Mail mail;
  mail.from_name = job.store_name;
  mail.from_address = sender_address(job, smtp_from);
  if (!is_plain_address(mail.from_address))
    throw RenderError("the sender address '" + mail.from_address + "' is not a plain address");
  if (!is_plain_address(job.recipient))
    throw RenderError("the recipient '" + job.recipient + "' is not a plain address");
  mail.to = job.recipient;
  if (job.kind == "customer" && is_plain_address(job.owner_email)) mail.reply_to = job.owner_email;
  RenderedText text = render_notification(job.template_name, job.locale, job.data, {job.store_name, job.store_url});
  mail.subject = std::move(text.subject);
  mail.body = std::move(text.body);
  mail.message_id = "notification-" + job.id + "@" + domain_of(mail.from_address);
  mail.date = now_unix_seconds;
  mail.trace_id = job.trace_id;
  return mail;
}

}  // namespace storeapi::dispatch
