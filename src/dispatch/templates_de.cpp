// German e-mail templates (templates.hpp).
#include "dispatch/templates.hpp"

namespace storeapi::dispatch {
namespace {

constexpr MessageTemplate kTemplates[] = {
    {"order_fulfillment_updated",
     "Ihre Bestellung #{{order_number}} bei {{store_name}}: {{fulfillment_status_label}}",
     R"(Hallo {{customer_name}},

Ihre Bestellung #{{order_number}} bei {{store_name}} ist jetzt {{fulfillment_status_label}}{{#previous_fulfillment_status_label}} (zuvor: {{previous_fulfillment_status_label}}){{/previous_fulfillment_status_label}}.{{#tracking_number}}

Sendungsnummer: {{tracking_number}}{{#tracking_carrier}} ({{tracking_carrier}}){{/tracking_carrier}}{{/tracking_number}}

Vielen Dank für Ihren Einkauf.
{{store_name}}
{{store_url}}
)"},
    {"booking_accepted",
     "Ihre Buchung für {{product_name}} ist bestätigt",
     R"(Hallo {{customer_name}},

{{store_name}} hat Ihre Buchung angenommen:

{{product_name}}
{{booking_date}} um {{booking_time}} ({{timezone}}), {{duration_minutes}} Minuten{{#meeting_method}}
Treffen: {{meeting_method}}{{/meeting_method}}{{#meeting_link}}
Teilnehmen: {{meeting_link}}{{/meeting_link}}

Bis dann.
{{store_name}}
{{store_url}}
)"},
    {"booking_canceled",
     "Ihre Buchung für {{product_name}} wurde storniert",
     R"(Hallo {{customer_name}},

Ihre Buchung für {{product_name}} am {{booking_date}} um {{booking_time}} ({{timezone}}) wurde storniert.

Bei Fragen antworten Sie einfach auf diese E-Mail.
{{store_name}}
{{store_url}}
)"},
    {"api_key_created",
     "Neuer API-Schlüssel „{{name}}“ für {{store_name}}",
     R"(Für {{store_name}} wurde ein neuer API-Schlüssel erstellt.

Name:         {{name}}
Schlüssel:    {{prefix}}...
Zugriff:      {{scopes}}
Gültig bis:   {{#expires_at}}{{expires_at}}{{/expires_at}}{{^expires_at}}unbegrenzt{{/expires_at}}
Erstellt von: {{created_by}}

Wenn Sie diesen Schlüssel nicht erwartet haben, widerrufen Sie ihn sofort.
)"},
    {"api_key_revoked",
     "API-Schlüssel „{{name}}“ von {{store_name}} widerrufen",
     R"(Der API-Schlüssel „{{name}}“ ({{prefix}}...) von {{store_name}} wurde am {{revoked_at}} widerrufen.
Programme, die ihn noch verwenden, werden ab jetzt abgewiesen.
)"},
    {"webhook_endpoint_disabled",
     "Webhook-Endpunkt von {{store_name}} deaktiviert",
     R"(Jede Zustellung an den Webhook-Endpunkt

  {{url}}

schlägt seit {{failing_since}} fehl. Er wurde deshalb deaktiviert und erhält keine Ereignisse mehr.

Sobald der Endpunkt wieder funktioniert, aktivieren Sie ihn und stellen die verpassten
Ereignisse erneut zu (storeapi-admin webhook enable, event redeliver).
)"},
};

constexpr Label kLabels[] = {
    {"fulfillment_status", "pending", "ausstehend"},
    {"fulfillment_status", "confirmed", "bestätigt"},
    {"fulfillment_status", "processing", "in Bearbeitung"},
    {"fulfillment_status", "ready", "bereit"},
    {"fulfillment_status", "shipped", "versandt"},
    {"fulfillment_status", "delivered", "zugestellt"},
    {"fulfillment_status", "canceled", "storniert"},
    {"fulfillment_status", "returned", "zurückgesendet"},
    {"fulfillment_status", "fulfilled", "abgeschlossen"},
};

}  // namespace

const LocaleTemplates kGermanTemplates = {"de", kTemplates, kLabels};

}  // namespace storeapi::dispatch
