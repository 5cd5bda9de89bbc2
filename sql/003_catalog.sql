-- Catalog: categories, products with translations, variants with price, discount and
-- stock, and the stock history.

create table categories (
  store_id uuid not null references stores (id),
  id uuid not null default gen_random_uuid(),
  name text not null check (name <> ''),
  slug text not null check (slug <> ''),
  parent_id uuid,
  created_at timestamptz(3) not null default api.now_ms(),
  updated_at timestamptz(3) not null default api.now_ms(),
  primary key (store_id, id),
  unique (store_id, slug),
  foreign key (store_id, parent_id) references categories (store_id, id),
  check (updated_at >= created_at)
);

-- name is the name in the store's default locale. Deleting is soft: status 'deleted'
-- and deleted_at set together. min/max price are derived from the variants when rendered.
create table products (
  store_id uuid not null references stores (id),
  id uuid not null default gen_random_uuid(),
  name text not null check (name <> ''),
  slug text not null check (slug <> ''),
  type product_type not null,
  status product_status not null,
  category_id uuid,
  tags text[] not null default '{}',
  images text[] not null default '{}',
  deleted_at timestamptz(3),
  created_at timestamptz(3) not null default api.now_ms(),
  updated_at timestamptz(3) not null default api.now_ms(),
  primary key (store_id, id),
  unique (store_id, slug),
  foreign key (store_id, category_id) references categories (store_id, id),
  check (updated_at >= created_at),
  check ((status = 'deleted') = (deleted_at is not null)),
  check (array_position(tags, null) is null and array_position(images, null) is null)
);
create index products_created on products (store_id, created_at, id);
create index products_updated on products (store_id, updated_at, id);

create table product_translations (
  store_id uuid not null,
  product_id uuid not null,
  locale text not null check (locale ~ '^[a-z]{2}(-[A-Z]{2})?$'),
  name text not null check (name <> ''),
  description text not null,
  primary key (store_id, product_id, locale),
  foreign key (store_id, product_id) references products (store_id, id)
);

-- stock null = not tracked. A discount is either absent (type null, value 0) or positive
-- and leaves a price above zero (percentage < 100, fixed < price). Deleting is soft.
create table variants (
  store_id uuid not null,
  id uuid not null default gen_random_uuid(),
  product_id uuid not null,
  title text not null check (title <> ''),
  sku text not null check (sku <> '' and char_length(sku) <= 100),
  barcode text,
  price numeric(10, 2) not null check (price >= 0),
  discount_type discount_type,
  discount_value numeric(10, 2) not null default 0 check (discount_value >= 0),
  stock integer check (stock >= 0),
  low_stock_threshold integer not null default 0 check (low_stock_threshold >= 0),
  option1 text,
  option2 text,
  option3 text,
  position integer not null check (position >= 0),
  image_url text,
  deleted_at timestamptz(3),
  created_at timestamptz(3) not null default api.now_ms(),
  updated_at timestamptz(3) not null default api.now_ms(),
  primary key (store_id, id),
  foreign key (store_id, product_id) references products (store_id, id),
  check (updated_at >= created_at),
  check ((discount_type is null) = (discount_value = 0)),
  check (discount_type is distinct from 'percentage' or discount_value < 100),
  check (discount_type is distinct from 'fixed' or discount_value < price)
);
create index variants_product on variants (store_id, product_id, position);
-- The products list `sku` filter matches live variants only.
create index variants_sku on variants (store_id, sku) where deleted_at is null;

-- One row per stock change, `set` to the current value included. before is null when a
-- `set` starts tracking an untracked variant. quantity is what was asked (the new value
-- for set, the change for adjust); delta = after - coalesce(before, 0).
create table stock_movements (
  store_id uuid not null,
  id uuid not null default gen_random_uuid(),
  variant_id uuid not null,
  product_id uuid not null,
  mode stock_mode not null,
  quantity integer not null,
  delta integer not null,
  before integer check (before >= 0),
  after integer not null check (after >= 0),
  note text check (char_length(note) <= 200),
  source stock_source not null,
  api_key_id uuid,
  created_at timestamptz(3) not null default api.now_ms(),
  primary key (store_id, id),
  foreign key (store_id, variant_id) references variants (store_id, id),
  foreign key (store_id, product_id) references products (store_id, id),
  foreign key (store_id, api_key_id) references api_keys (store_id, id),
  check (after = coalesce(before, 0) + delta),
  check (case mode when 'set' then quantity = after
                   else before is not null and quantity = delta and quantity <> 0 end)
);
create index stock_movements_variant on stock_movements (store_id, variant_id, created_at, id);
