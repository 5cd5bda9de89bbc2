-- The write statements of this release read an error answer's fields with
-- api.error_fields (sql/functions/35_write_errors.sql), which `migrate` defines after the
-- numbered migrations. This migration records that the database took this release's
-- repeatable files: the server's start-up check (kRequiredSchema, src/db/start_check.hpp)
-- names it, so a server of this release refuses to start on a database an older `migrate`
-- left. It changes nothing itself; the previous release's statements are unchanged.
select 1;
