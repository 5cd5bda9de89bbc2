-- Store moves (docs/DECISIONS.md, "Pods"): `storeapi-admin store move` records here, in the
-- directory, how far the move of a store has gone, so that a move killed half-way can be
-- taken up again: before the flip a retry undoes what is left (the subscription, its slot,
-- the publication, the target's partial rows, the source's fence) and starts again; after
-- it, a retry finishes (lifts the target's fence, deletes the source's rows). One row per
-- store: its last move.
--   copying   publication and subscription made, the target catching up, then the
--             source's fence: until the flip the store is served from the source
--   flipped   the directory places the store on the target
--   done      the fence lifted on the target and the source's rows deleted
create table store_moves (
  store_id uuid primary key references stores (id),
  source text not null references pods (name),
  target text not null references pods (name) check (target <> source),
  phase text not null check (phase in ('copying', 'flipped', 'done')),
  -- The placement epoch the move flips to.
  epoch bigint not null check (epoch > 1),
  started_at timestamptz(3) not null default api.now_ms(),
  updated_at timestamptz(3) not null default api.now_ms()
);
