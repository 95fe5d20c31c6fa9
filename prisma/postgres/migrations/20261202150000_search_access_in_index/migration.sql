-- Search with a stored tsvector and the access rule on one index (docs/search.md,
-- bench/README.md):
-- 1. A chat-bound passage (a message, a chat's local entry) names its owner: audience
--    `chat:<userId>:<workspaceId>` of its chat (a chat's owner and workspace never change), so who
--    may see a passage is its audience alone, without a join on "Chat".
-- 2. "searchVector": the weighted tsvector stored (a generated column) instead of recomputed
--    from path, title and body for every matching row a search ranks; the GIN index moves to it.
--    Prisma's schema does not describe the column (it is the same schema for both databases);
--    the drift check leaves it alone (scripts/db-raw-objects.mjs).

UPDATE "SearchPassage" AS p
SET "audience" = COALESCE(
    (SELECT 'chat:' || c."userId" || ':' || c."workspaceId" FROM "Chat" AS c WHERE c."id" = p."chatId"),
    'chat:')
WHERE p."audience" = 'chat';

ALTER TABLE "SearchPassage"
    ADD COLUMN "searchVector" tsvector GENERATED ALWAYS AS ("search_passage_tsv"("path", "title", "body")) STORED;

DROP INDEX "SearchPassage_tsv_idx";
CREATE INDEX "SearchPassage_searchVector_idx" ON "SearchPassage" USING GIN ("searchVector");

-- The audience of a chat's passages: its owner in its workspace (`chat:` alone, seen by nobody,
-- for a chat that does not exist).
CREATE FUNCTION "search_chat_audience"("chatId" TEXT) RETURNS TEXT LANGUAGE sql STABLE AS $$
    SELECT COALESCE((SELECT 'chat:' || c."userId" || ':' || c."workspaceId" FROM "Chat" AS c WHERE c."id" = $1), 'chat:')
$$;

-- Chat messages: the audience names the chat's owner and workspace.
CREATE OR REPLACE FUNCTION "search_index_chat_message"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    body TEXT;
BEGIN
    IF TG_OP <> 'INSERT' THEN
        DELETE FROM "SearchPassage" WHERE "sourceKey" = 'msg:' || OLD."id";
    END IF;
    IF TG_OP <> 'DELETE' THEN
        body := "search_message_text"(NEW."parts");
        IF body IS NOT NULL AND btrim(body) <> '' THEN
            INSERT INTO "SearchPassage" ("sourceKey", "kind", "audience", "chatId", "messageId", "path", "title", "body", "lineStart", "lineEnd", "updatedAt")
            VALUES ('msg:' || NEW."id", 'chat', "search_chat_audience"(NEW."chatId"), NEW."chatId", NEW."id", '', '', body, 1,
                    "search_line_count"(body), NEW."createdAt");
        END IF;
    END IF;
    RETURN NULL;
END
$$;

-- Harness entries: a local entry's audience is its chat's.
CREATE OR REPLACE FUNCTION "search_index_harness_entry"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP <> 'INSERT' THEN
        DELETE FROM "SearchPassage" WHERE "sourceKey" = 'entry:' || OLD."workspaceId" || ':' || OLD."entryKey";
    END IF;
    IF TG_OP <> 'DELETE' THEN
        INSERT INTO "SearchPassage" ("sourceKey", "kind", "audience", "chatId", "messageId", "path", "title", "body", "lineStart", "lineEnd", "updatedAt")
        VALUES ('entry:' || NEW."workspaceId" || ':' || NEW."entryKey", 'harness',
                CASE WHEN NEW."scope" = 'local' THEN "search_chat_audience"(NEW."chatId") ELSE 'workspace:' || NEW."workspaceId" END,
                CASE WHEN NEW."scope" = 'local' THEN NEW."chatId" ELSE NULL END, NULL,
                NEW."path", NEW."title", NEW."content", 1, "search_line_count"(NEW."content"), NEW."updatedAt");
    END IF;
    RETURN NULL;
END
$$;
