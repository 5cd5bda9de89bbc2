#pragma once
// Turns a claimed notification into the e-mail to send.
#include "dispatch/jobs.hpp"
#include "dispatch/mail_message.hpp"

#include <optional>
#include <string>

namespace storeapi::dispatch {

// The rendered message of `job`. From: `smtp_from` when set, else no-reply@ the store's
// host, named after the store; customers' mail has Reply-To: the store owner. The
// Message-ID is fixed per notification, so a repeated send can be recognised; X-Trace-Id
// names the trace of the request that queued it, when known. Throws
// RenderError when no message can be made (retrying would not help).
Mail notification_mail(const NotificationJob& job, const std::optional<std::string>& smtp_from,
                       std::int64_t now_unix_seconds);

}  // namespace storeapi::dispatch
