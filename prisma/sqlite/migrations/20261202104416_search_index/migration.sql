-- CreateTable
CREATE TABLE "SearchPassage" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
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
    "updatedAt" DATETIME NOT NULL
);

-- CreateIndex
CREATE INDEX "SearchPassage_sourceKey_idx" ON "SearchPassage"("sourceKey");

-- CreateIndex
CREATE INDEX "SearchPassage_audience_kind_idx" ON "SearchPassage"("audience", "kind");

-- CreateIndex
CREATE INDEX "SearchPassage_chatId_idx" ON "SearchPassage"("chatId");


-- Full-text index (lib/search, docs/search.md): an FTS5 table over SearchPassage's path, title
-- and body, kept in step by triggers, Porter stemming over unicode61 (diacritics folded),
-- prefix indexes for 2- and 3-letter prefixes (`dash*`).
CREATE VIRTUAL TABLE "SearchPassageFts" USING fts5(
    "path", "title", "body",
    content='SearchPassage', content_rowid='id',
    tokenize='porter unicode61 remove_diacritics 2',
    prefix='2 3'
);

CREATE TRIGGER "SearchPassage_fts_insert" AFTER INSERT ON "SearchPassage" BEGIN
    INSERT INTO "SearchPassageFts" (rowid, "path", "title", "body")
    VALUES (NEW."id", replace(replace(replace(NEW."path", '/', ' '), '.', ' '), '-', ' '), NEW."title", NEW."body");
END;

CREATE TRIGGER "SearchPassage_fts_delete" AFTER DELETE ON "SearchPassage" BEGIN
    INSERT INTO "SearchPassageFts" ("SearchPassageFts", rowid, "path", "title", "body")
    VALUES ('delete', OLD."id", replace(replace(replace(OLD."path", '/', ' '), '.', ' '), '-', ' '), OLD."title", OLD."body");
END;

CREATE TRIGGER "SearchPassage_fts_update" AFTER UPDATE OF "path", "title", "body" ON "SearchPassage" BEGIN
    INSERT INTO "SearchPassageFts" ("SearchPassageFts", rowid, "path", "title", "body")
    VALUES ('delete', OLD."id", replace(replace(replace(OLD."path", '/', ' '), '.', ' '), '-', ' '), OLD."title", OLD."body");
    INSERT INTO "SearchPassageFts" (rowid, "path", "title", "body")
    VALUES (NEW."id", replace(replace(replace(NEW."path", '/', ' '), '.', ' '), '-', ' '), NEW."title", NEW."body");
END;

-- Chat messages: one passage per message (its text parts), written and removed with the message.
CREATE TRIGGER "ChatMessage_search_insert" AFTER INSERT ON "ChatMessage" BEGIN
    INSERT INTO "SearchPassage" ("sourceKey", "kind", "audience", "chatId", "messageId", "path", "title", "body", "lineStart", "lineEnd", "updatedAt")
    SELECT 'msg:' || NEW."id", 'chat', 'chat', NEW."chatId", NEW."id", '', '', t."body", 1,
           length(t."body") - length(replace(t."body", char(10), '')) + 1, NEW."createdAt"
    FROM (SELECT (SELECT group_concat(json_extract(value, '$.text'), char(10))
                  FROM json_each(CASE WHEN json_valid(NEW."parts") AND json_type(NEW."parts") = 'array' THEN NEW."parts" ELSE '[]' END)
                  WHERE json_extract(value, '$.type') = 'text' AND json_type(value, '$.text') = 'text') AS "body") AS t
    WHERE t."body" IS NOT NULL AND trim(t."body") <> '';
END;

CREATE TRIGGER "ChatMessage_search_update" AFTER UPDATE OF "parts", "chatId" ON "ChatMessage" BEGIN
    DELETE FROM "SearchPassage" WHERE "sourceKey" = 'msg:' || OLD."id";
    INSERT INTO "SearchPassage" ("sourceKey", "kind", "audience", "chatId", "messageId", "path", "title", "body", "lineStart", "lineEnd", "updatedAt")
    SELECT 'msg:' || NEW."id", 'chat', 'chat', NEW."chatId", NEW."id", '', '', t."body", 1,
           length(t."body") - length(replace(t."body", char(10), '')) + 1, NEW."createdAt"
    FROM (SELECT (SELECT group_concat(json_extract(value, '$.text'), char(10))
                  FROM json_each(CASE WHEN json_valid(NEW."parts") AND json_type(NEW."parts") = 'array' THEN NEW."parts" ELSE '[]' END)
                  WHERE json_extract(value, '$.type') = 'text' AND json_type(value, '$.text') = 'text') AS "body") AS t
    WHERE t."body" IS NOT NULL AND trim(t."body") <> '';
END;

CREATE TRIGGER "ChatMessage_search_delete" AFTER DELETE ON "ChatMessage" BEGIN
    DELETE FROM "SearchPassage" WHERE "sourceKey" = 'msg:' || OLD."id";
END;

-- Harness entries: one passage per entry (title and content), a local entry is its chat's.
CREATE TRIGGER "HarnessEntry_search_insert" AFTER INSERT ON "HarnessEntry" BEGIN
    INSERT INTO "SearchPassage" ("sourceKey", "kind", "audience", "chatId", "messageId", "path", "title", "body", "lineStart", "lineEnd", "updatedAt")
    VALUES ('entry:' || NEW."workspaceId" || ':' || NEW."entryKey", 'harness',
            CASE WHEN NEW."scope" = 'local' THEN 'chat' ELSE 'workspace:' || NEW."workspaceId" END,
            CASE WHEN NEW."scope" = 'local' THEN NEW."chatId" ELSE NULL END, NULL,
            NEW."path", NEW."title", NEW."content", 1,
            length(NEW."content") - length(replace(NEW."content", char(10), '')) + 1, NEW."updatedAt");
END;

CREATE TRIGGER "HarnessEntry_search_update" AFTER UPDATE ON "HarnessEntry" BEGIN
    DELETE FROM "SearchPassage" WHERE "sourceKey" = 'entry:' || OLD."workspaceId" || ':' || OLD."entryKey";
    INSERT INTO "SearchPassage" ("sourceKey", "kind", "audience", "chatId", "messageId", "path", "title", "body", "lineStart", "lineEnd", "updatedAt")
    VALUES ('entry:' || NEW."workspaceId" || ':' || NEW."entryKey", 'harness',
            CASE WHEN NEW."scope" = 'local' THEN 'chat' ELSE 'workspace:' || NEW."workspaceId" END,
            CASE WHEN NEW."scope" = 'local' THEN NEW."chatId" ELSE NULL END, NULL,
            NEW."path", NEW."title", NEW."content", 1,
            length(NEW."content") - length(replace(NEW."content", char(10), '')) + 1, NEW."updatedAt");
END;

CREATE TRIGGER "HarnessEntry_search_delete" AFTER DELETE ON "HarnessEntry" BEGIN
    DELETE FROM "SearchPassage" WHERE "sourceKey" = 'entry:' || OLD."workspaceId" || ':' || OLD."entryKey";
END;

-- What existed before the index: messages and entries now (dir files: `npx cairn search reindex`,
-- which the server also runs once at start when the index holds no dir passage).
INSERT INTO "SearchPassage" ("sourceKey", "kind", "audience", "chatId", "messageId", "path", "title", "body", "lineStart", "lineEnd", "updatedAt")
SELECT 'entry:' || e."workspaceId" || ':' || e."entryKey", 'harness',
       CASE WHEN e."scope" = 'local' THEN 'chat' ELSE 'workspace:' || e."workspaceId" END,
       CASE WHEN e."scope" = 'local' THEN e."chatId" ELSE NULL END, NULL,
       e."path", e."title", e."content", 1,
       length(e."content") - length(replace(e."content", char(10), '')) + 1, e."updatedAt"
FROM "HarnessEntry" AS e;

INSERT INTO "SearchPassage" ("sourceKey", "kind", "audience", "chatId", "messageId", "path", "title", "body", "lineStart", "lineEnd", "updatedAt")
SELECT 'msg:' || m."id", 'chat', 'chat', m."chatId", m."id", '', '', m."body", 1,
       length(m."body") - length(replace(m."body", char(10), '')) + 1, m."createdAt"
FROM (SELECT c."id", c."chatId", c."createdAt",
             (SELECT group_concat(json_extract(value, '$.text'), char(10))
              FROM json_each(CASE WHEN json_valid(c."parts") AND json_type(c."parts") = 'array' THEN c."parts" ELSE '[]' END)
              WHERE json_extract(value, '$.type') = 'text' AND json_type(value, '$.text') = 'text') AS "body"
      FROM "ChatMessage" AS c) AS m
WHERE m."body" IS NOT NULL AND trim(m."body") <> '';
