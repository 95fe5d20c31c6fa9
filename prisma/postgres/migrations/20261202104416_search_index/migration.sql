-- CreateTable
CREATE TABLE "SearchPassage" (
    "id" SERIAL NOT NULL,
    "sourceKey" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "audience" TEXT NOT NULL,
    "chatId" TEXT,
    "messageId" TEXT,
    "path" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "lineStart" INTEGER NOT NULL,
    "lineEnd" INTEGER NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "SearchPassage_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "SearchPassage_sourceKey_idx" ON "SearchPassage"("sourceKey");

-- CreateIndex
CREATE INDEX "SearchPassage_audience_kind_idx" ON "SearchPassage"("audience", "kind");

-- CreateIndex
CREATE INDEX "SearchPassage_chatId_idx" ON "SearchPassage"("chatId");


-- Full-text index (lib/search, docs/search.md): a weighted tsvector of path (A), title (B) and
-- body (C) with a GIN index. It is an expression index, not a column, so the Prisma schema (the
-- same for both providers) needs no PostgreSQL-only field, queries spell the same expression.
CREATE FUNCTION "search_passage_tsv"("path" TEXT, "title" TEXT, "body" TEXT) RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT setweight(to_tsvector('english'::regconfig, regexp_replace("path", '[/._-]+', ' ', 'g')), 'A')
        || setweight(to_tsvector('english'::regconfig, "title"), 'B')
        || setweight(to_tsvector('english'::regconfig, "body"), 'C')
$$;

CREATE INDEX "SearchPassage_tsv_idx" ON "SearchPassage" USING GIN ("search_passage_tsv"("path", "title", "body"));

-- Trigram matching of names and paths (`notes/alic`), when the server allows the extension,
-- search works without it (plain ILIKE, unindexed).
DO $$
BEGIN
    CREATE EXTENSION IF NOT EXISTS pg_trgm;
    EXECUTE 'CREATE INDEX "SearchPassage_path_trgm_idx" ON "SearchPassage" USING GIN ((lower("path")) gin_trgm_ops)';
EXCEPTION WHEN OTHERS THEN
    RAISE NOTICE 'pg_trgm is not available (%): path search runs without its index', SQLERRM;
END
$$;

-- The text parts of a message's stored parts (JSON text), or NULL, bad JSON indexes nothing.
CREATE FUNCTION "search_message_text"("parts" TEXT) RETURNS TEXT
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    parsed jsonb;
BEGIN
    BEGIN
        parsed := "parts"::jsonb;
    EXCEPTION WHEN OTHERS THEN
        RETURN NULL;
    END;
    IF jsonb_typeof(parsed) <> 'array' THEN
        RETURN NULL;
    END IF;
    RETURN (SELECT string_agg(element->>'text', E'\n') FROM jsonb_array_elements(parsed) AS element
            WHERE element->>'type' = 'text' AND jsonb_typeof(element->'text') = 'string');
END
$$;

CREATE FUNCTION "search_line_count"("text" TEXT) RETURNS INTEGER
LANGUAGE sql IMMUTABLE AS $$
    SELECT length("text") - length(replace("text", E'\n', '')) + 1
$$;

-- Chat messages: one passage per message, written and removed with the message.
CREATE FUNCTION "search_index_chat_message"() RETURNS trigger LANGUAGE plpgsql AS $$
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
            VALUES ('msg:' || NEW."id", 'chat', 'chat', NEW."chatId", NEW."id", '', '', body, 1, "search_line_count"(body), NEW."createdAt");
        END IF;
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER "ChatMessage_search" AFTER INSERT OR UPDATE OF "parts", "chatId" OR DELETE ON "ChatMessage"
FOR EACH ROW EXECUTE FUNCTION "search_index_chat_message"();

-- Harness entries: one passage per entry, a local entry is its chat's.
CREATE FUNCTION "search_index_harness_entry"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP <> 'INSERT' THEN
        DELETE FROM "SearchPassage" WHERE "sourceKey" = 'entry:' || OLD."workspaceId" || ':' || OLD."entryKey";
    END IF;
    IF TG_OP <> 'DELETE' THEN
        INSERT INTO "SearchPassage" ("sourceKey", "kind", "audience", "chatId", "messageId", "path", "title", "body", "lineStart", "lineEnd", "updatedAt")
        VALUES ('entry:' || NEW."workspaceId" || ':' || NEW."entryKey", 'harness',
                CASE WHEN NEW."scope" = 'local' THEN 'chat' ELSE 'workspace:' || NEW."workspaceId" END,
                CASE WHEN NEW."scope" = 'local' THEN NEW."chatId" ELSE NULL END, NULL,
                NEW."path", NEW."title", NEW."content", 1, "search_line_count"(NEW."content"), NEW."updatedAt");
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER "HarnessEntry_search" AFTER INSERT OR UPDATE OR DELETE ON "HarnessEntry"
FOR EACH ROW EXECUTE FUNCTION "search_index_harness_entry"();

-- What existed before the index: messages and entries now (dir files: `npx cairn search reindex`,
-- which the server also runs once at start when the index holds no dir passage).
INSERT INTO "SearchPassage" ("sourceKey", "kind", "audience", "chatId", "messageId", "path", "title", "body", "lineStart", "lineEnd", "updatedAt")
SELECT 'entry:' || e."workspaceId" || ':' || e."entryKey", 'harness',
       CASE WHEN e."scope" = 'local' THEN 'chat' ELSE 'workspace:' || e."workspaceId" END,
       CASE WHEN e."scope" = 'local' THEN e."chatId" ELSE NULL END, NULL,
       e."path", e."title", e."content", 1, "search_line_count"(e."content"), e."updatedAt"
FROM "HarnessEntry" AS e;

INSERT INTO "SearchPassage" ("sourceKey", "kind", "audience", "chatId", "messageId", "path", "title", "body", "lineStart", "lineEnd", "updatedAt")
SELECT 'msg:' || m."id", 'chat', 'chat', m."chatId", m."id", '', '', m."body", 1, "search_line_count"(m."body"), m."createdAt"
FROM (SELECT "id", "chatId", "createdAt", "search_message_text"("parts") AS "body" FROM "ChatMessage") AS m
WHERE m."body" IS NOT NULL AND btrim(m."body") <> '';
