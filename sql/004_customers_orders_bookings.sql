-- Customers, orders with their line items, and consultation bookings.

create table customers (
  store_id uuid not null references stores (id),
  id uuid not null default gen_random_uuid(),
  name text not null,
  email text not null,
  phone text not null,
  source customer_source not null,
  email_status email_status not null,
  unsubscribed_at timestamptz(3),
  tags text[] not null default '{}',
  created_at timestamptz(3) not null default api.now_ms(),
  updated_at timestamptz(3) not null default api.now_ms(),
  primary key (store_id, id),
  check (updated_at >= created_at),
  check (array_position(tags, null) is null)
);
create index customers_created on customers (store_id, created_at, id);
create index customers_updated on customers (store_id, updated_at, id);
-- The customers list `email` filter is exact but case-insensitive.
create index customers_email on customers (store_id, lower(email));

-- The customer and the addresses are snapshots taken when the order was placed.
-- total = subtotal + shipping_total + tax_total; subtotal = the sum of the line totals
-- (kept by the writers: a check constraint cannot see other rows).
create table orders (
  store_id uuid not null references stores (id),
  id uuid not null default gen_random_uuid(),
  order_number bigint not null check (order_number > 0),
  status order_status not null,
  fulfillment_status fulfillment_status not null,
  channel order_channel not null,
  currency currency_code not null,
  subtotal numeric(10, 2) not null check (subtotal >= 0),
  shipping_total numeric(10, 2) not null check (shipping_total >= 0),
  tax_total numeric(10, 2) not null check (tax_total >= 0),
  total numeric(10, 2) not null check (total >= 0),
  payment_method text not null check (payment_method <> ''),
  payment_gateway text not null check (payment_gateway <> ''),
  paid_at timestamptz(3),
  tracking_number text check (char_length(tracking_number) between 1 and 100),
  tracking_carrier text check (char_length(tracking_carrier) between 1 and 100),
  customer_id uuid not null,
  customer_name text not null,
  customer_email text not null,
  customer_phone text not null,
  billing_address jsonb not null check (api.is_address(billing_address)),
  shipping_address jsonb not null check (api.is_address(shipping_address)),
  created_at timestamptz(3) not null default api.now_ms(),
  updated_at timestamptz(3) not null default api.now_ms(),
  primary key (store_id, id),
  unique (store_id, order_number),
  foreign key (store_id, customer_id) references customers (store_id, id),
  check (updated_at >= created_at),
  check (total = subtotal + shipping_total + tax_total)
);
create index orders_created on orders (store_id, created_at, id);
create index orders_updated on orders (store_id, updated_at, id);
create index orders_customer on orders (store_id, customer_id);

-- total = quantity * (unit_price - unit_discount). Product name and variant title are
-- snapshots; position keeps the order's line items in their original order.
create table order_line_items (
  store_id uuid not null,
  id uuid not null default gen_random_uuid(),
  order_id uuid not null,
  position integer not null check (position >= 0),
  product_id uuid not null,
  product_name text not null,
  variant_id uuid not null,
  variant_title text not null,
  quantity integer not null check (quantity > 0),
  unit_price numeric(10, 2) not null check (unit_price >= 0),
  unit_discount numeric(10, 2) not null default 0 check (unit_discount >= 0),
  total numeric(10, 2) not null check (total >= 0),
  primary key (store_id, id),
  unique (store_id, order_id, position),
  foreign key (store_id, order_id) references orders (store_id, id),
  foreign key (store_id, product_id) references products (store_id, id),
  foreign key (store_id, variant_id) references variants (store_id, id),
  check (unit_discount <= unit_price),
  check (total = quantity * (unit_price - unit_discount))
);

-- A consultation booked through an order. The API's `date` and `time` (HH:mm, in
-- `timezone`) are booking_date and booking_time. Product and customer are snapshots.
create table bookings (
  store_id uuid not null,
  id uuid not null default gen_random_uuid(),
  status booking_status not null,
  booking_date date not null,
  booking_time time(0) not null check (extract(second from booking_time) = 0),
  timezone text not null check (timezone <> ''),
  duration_minutes integer not null check (duration_minutes > 0),
  meeting_method text not null check (meeting_method <> ''),
  meeting_link text not null,
  order_id uuid not null,
  product_id uuid not null,
  product_name text not null,
  customer_id uuid not null,
  customer_name text not null,
  customer_email text not null,
  customer_phone text not null,
  created_at timestamptz(3) not null default api.now_ms(),
  updated_at timestamptz(3) not null default api.now_ms(),
  primary key (store_id, id),
  foreign key (store_id) references stores (id),
  foreign key (store_id, order_id) references orders (store_id, id),
  foreign key (store_id, product_id) references products (store_id, id),
  foreign key (store_id, customer_id) references customers (store_id, id),
  check (updated_at >= created_at)
);
-- The bookings list has no updated_after filter, so it needs the created_at index only.
create index bookings_created on bookings (store_id, created_at, id);
