-- 101 stored documents by the same index (the floor of a customers page of 100).
\set n random(200, 100000)
select doc, created_at, id from floor_docs
 where store_id = 1 and (created_at, id) < (timestamptz '2026-01-01' + make_interval(secs => :n), 0::bigint)
 order by created_at desc, id desc limit 101;
