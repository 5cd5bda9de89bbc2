// English e-mail templates, the fallback for every locale (templates.hpp).
#include "dispatch/templates.hpp"

namespace storeapi::dispatch {
namespace {

constexpr MessageTemplate kTemplates[] = {
    {"order_fulfillment_updated",
     "Your order #{{order_number}} at {{store_name}} is {{fulfillment_status_label}}",
     R"(Hello {{customer_name}},

your order #{{order_number}} at {{store_name}} is now {{fulfillment_status_label}}{{#previous_fulfillment_status_label}} (it was {{previous_fulfillment_status_label}}){{/previous_fulfillment_status_label}}.{{#tracking_number}}

Tracking number: {{tracking_number}}{{#tracking_carrier}} ({{tracking_carrier}}){{/tracking_carrier}}{{/tracking_number}}

Thank you for shopping with us.
{{store_name}}
{{store_url}}
)"},
    {"booking_accepted",
     "Your booking for {{product_name}} is confirmed",
     R"(Hello {{customer_name}},

{{store_name}} has accepted your booking:

{{product_name}}
{{booking_date}} at {{booking_time}} ({{timezone}}), {{duration_minutes}} minutes{{#meeting_method}}
Meeting: {{meeting_method}}{{/meeting_method}}{{#meeting_link}}
Join: {{meeting_link}}{{/meeting_link}}

See you then.
{{store_name}}
{{store_url}}
)"},
    {"booking_canceled",
     "Your booking for {{product_name}} was canceled",
     R"(Hello {{customer_name}},

your booking for {{product_name}} on {{booking_date}} at {{booking_time}} ({{timezone}}) has been canceled.

If you have questions, reply to this e-mail.
{{store_name}}
{{store_url}}
)"},
    {"api_key_created",
     "New API key \"{{name}}\" for {{store_name}}",
     R"(A new API key was created for {{store_name}}.

Name:       {{name}}
Key:        {{prefix}}...
Access:     {{scopes}}
Expires:    {{#expires_at}}{{expires_at}}{{/expires_at}}{{^expires_at}}never{{/expires_at}}
Created by: {{created_by}}

If you did not expect this key, revoke it at once.
)"},
    {"api_key_revoked",
     "API key \"{{name}}\" of {{store_name}} was revoked",
     R"(The API key "{{name}}" ({{prefix}}...) of {{store_name}} was revoked at {{revoked_at}}.
Programs still using it are refused from now on.
)"},
    {"webhook_endpoint_disabled",
     "Webhook endpoint of {{store_name}} disabled",
     R"(Every delivery to the webhook endpoint

  {{url}}

has failed since {{failing_since}}, so it has been disabled and receives no more events.

Once the endpoint works again, enable it and redeliver the events it missed
(storeapi-admin webhook enable, event redeliver).
)"},
};

constexpr Label kLabels[] = {
    {"fulfillment_status", "pending", "pending"},
    {"fulfillment_status", "confirmed", "confirmed"},
    {"fulfillment_status", "processing", "being processed"},
    {"fulfillment_status", "ready", "ready"},
    {"fulfillment_status", "shipped", "shipped"},
    {"fulfillment_status", "delivered", "delivered"},
    {"fulfillment_status", "canceled", "canceled"},
    {"fulfillment_status", "returned", "returned"},
    {"fulfillment_status", "fulfilled", "fulfilled"},
};

}  // namespace

const LocaleTemplates kEnglishTemplates = {"en", kTemplates, kLabels};

}  // namespace storeapi::dispatch
