-- Whether the target pod of a store's move held the store's tombstone (the fence row a
-- past move left there, docs/DECISIONS.md "Pods") when the move began: a move undone
-- before its flip then keeps it, writes fenced, rather than deleting it with the store's
-- other rows, so a node still routing the store there from its cache cannot write
-- unfenced. Expand-only: a column with a constant default (no table rewrite); the
-- previous release's tool, which does not name it, records false as before.
alter table store_moves add column target_tombstone boolean not null default false;
