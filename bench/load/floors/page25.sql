-- 26 stored documents (a page of 25 and one to know there is more) by the
-- (store_id, created_at, id) index from a random position (the floor of a page of 25).
\set n random(30, 100000)
select doc, created_at, id from floor_docs
 where store_id = 1 and (created_at, id) < (timestamptz '2026-01-01' + make_interval(secs => :n), 0::bigint)
 order by created_at desc, id desc limit 26;
