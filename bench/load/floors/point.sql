-- One stored 2 KB document by primary key (the floor of GET /v1/{resource}/{id}).
\set n random(1, 100000)
select doc from floor_docs where store_id = 1 and id = :n;
