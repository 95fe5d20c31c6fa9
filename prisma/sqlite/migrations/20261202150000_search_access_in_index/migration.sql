-- Search with the access rule inside the full-text index (docs/search.md, bench/README.md):
-- 1. A chat-bound passage (a message, a chat's local entry) names its owner: audience
--    `chat:<userId>:<workspaceId>` of its chat (a chat's owner and workspace never change), so who
--    may see a passage is its audience alone, without a join on "Chat".
-- 2. The FTS5 table gets a fourth column, "access": one token per passage for its kind and
--    audience ('a' || hex(kind || ' ' || audience) || '0': one unicode61 token that no Porter rule
--    changes, as it ends in a digit). A search matches `access : (<the tokens the actor may
--    see>) AND {path title body} : (<the words>)`, so FTS5 ranks only what the actor may see and a
--    ranked LIMIT inside the MATCH bounds the rows read from "SearchPassage".
--    "access" is no column of "SearchPassage": never run FTS5's 'rebuild' on this table (it fails
--    loudly); `cairn search reindex` uses 'delete-all' and the triggers.

DROP TRIGGER "SearchPassage_fts_insert";
DROP TRIGGER "SearchPassage_fts_delete";
DROP TRIGGER "SearchPassage_fts_update";
DROP TABLE "SearchPassageFts";

UPDATE "SearchPassage"
SET "audience" = COALESCE(
    (SELECT 'chat:' || c."userId" || ':' || c."workspaceId" FROM "Chat" AS c WHERE c."id" = "SearchPassage"."chatId"),
    'chat:')
WHERE "audience" = 'chat';

CREATE VIRTUAL TABLE "SearchPassageFts" USING fts5(
    "path", "title", "body", "access",
    content='', contentless_delete=1,
    tokenize='porter unicode61 remove_diacritics 2',
    prefix='2 3'
);

CREATE TRIGGER "SearchPassage_fts_insert" AFTER INSERT ON "SearchPassage" BEGIN
    INSERT INTO "SearchPassageFts" (rowid, "path", "title", "body", "access")
    VALUES (NEW."id", replace(replace(replace(NEW."path", '/', ' '), '.', ' '), '-', ' '), NEW."title", NEW."body",
            'a' || lower(hex(NEW."kind" || ' ' || NEW."audience")) || '0');
END;

CREATE TRIGGER "SearchPassage_fts_delete" AFTER DELETE ON "SearchPassage" BEGIN
    DELETE FROM "SearchPassageFts" WHERE rowid = OLD."id";
END;

CREATE TRIGGER "SearchPassage_fts_update" AFTER UPDATE OF "path", "title", "body", "kind", "audience" ON "SearchPassage" BEGIN
    DELETE FROM "SearchPassageFts" WHERE rowid = OLD."id";
    INSERT INTO "SearchPassageFts" (rowid, "path", "title", "body", "access")
    VALUES (NEW."id", replace(replace(replace(NEW."path", '/', ' '), '.', ' '), '-', ' '), NEW."title", NEW."body",
            'a' || lower(hex(NEW."kind" || ' ' || NEW."audience")) || '0');
END;

INSERT INTO "SearchPassageFts" (rowid, "path", "title", "body", "access")
SELECT "id", replace(replace(replace("path", '/', ' '), '.', ' '), '-', ' '), "title", "body",
       'a' || lower(hex("kind" || ' ' || "audience")) || '0'
FROM "SearchPassage";

-- Chat messages and a chat's local entries: the audience names the chat's owner and workspace.
DROP TRIGGER "ChatMessage_search_insert";
DROP TRIGGER "ChatMessage_search_update";
DROP TRIGGER "HarnessEntry_search_insert";
DROP TRIGGER "HarnessEntry_search_update";

CREATE TRIGGER "ChatMessage_search_insert" AFTER INSERT ON "ChatMessage" BEGIN
    INSERT INTO "SearchPassage" ("sourceKey", "kind", "audience", "chatId", "messageId", "path", "title", "body", "lineStart", "lineEnd", "updatedAt")
    SELECT 'msg:' || NEW."id", 'chat',
           COALESCE((SELECT 'chat:' || c."userId" || ':' || c."workspaceId" FROM "Chat" AS c WHERE c."id" = NEW."chatId"), 'chat:'),
           NEW."chatId", NEW."id", '', '', t."body", 1,
           length(t."body") - length(replace(t."body", char(10), '')) + 1, NEW."createdAt"
    FROM (SELECT (SELECT group_concat(json_extract(value, '$.text'), char(10))
                  FROM json_each(CASE WHEN json_valid(NEW."parts") AND json_type(NEW."parts") = 'array' THEN NEW."parts" ELSE '[]' END)
                  WHERE json_extract(value, '$.type') = 'text' AND json_type(value, '$.text') = 'text') AS "body") AS t
    WHERE t."body" IS NOT NULL AND trim(t."body") <> '';
END;

CREATE TRIGGER "ChatMessage_search_update" AFTER UPDATE OF "parts", "chatId" ON "ChatMessage" BEGIN
    DELETE FROM "SearchPassage" WHERE "sourceKey" = 'msg:' || OLD."id";
    INSERT INTO "SearchPassage" ("sourceKey", "kind", "audience", "chatId", "messageId", "path", "title", "body", "lineStart", "lineEnd", "updatedAt")
    SELECT 'msg:' || NEW."id", 'chat',
           COALESCE((SELECT 'chat:' || c."userId" || ':' || c."workspaceId" FROM "Chat" AS c WHERE c."id" = NEW."chatId"), 'chat:'),
           NEW."chatId", NEW."id", '', '', t."body", 1,
           length(t."body") - length(replace(t."body", char(10), '')) + 1, NEW."createdAt"
    FROM (SELECT (SELECT group_concat(json_extract(value, '$.text'), char(10))
                  FROM json_each(CASE WHEN json_valid(NEW."parts") AND json_type(NEW."parts") = 'array' THEN NEW."parts" ELSE '[]' END)
                  WHERE json_extract(value, '$.type') = 'text' AND json_type(value, '$.text') = 'text') AS "body") AS t
    WHERE t."body" IS NOT NULL AND trim(t."body") <> '';
END;

CREATE TRIGGER "HarnessEntry_search_insert" AFTER INSERT ON "HarnessEntry" BEGIN
    INSERT INTO "SearchPassage" ("sourceKey", "kind", "audience", "chatId", "messageId", "path", "title", "body", "lineStart", "lineEnd", "updatedAt")
    VALUES ('entry:' || NEW."workspaceId" || ':' || NEW."entryKey", 'harness',
            CASE WHEN NEW."scope" = 'local'
                 THEN COALESCE((SELECT 'chat:' || c."userId" || ':' || c."workspaceId" FROM "Chat" AS c WHERE c."id" = NEW."chatId"), 'chat:')
                 ELSE 'workspace:' || NEW."workspaceId" END,
            CASE WHEN NEW."scope" = 'local' THEN NEW."chatId" ELSE NULL END, NULL,
            NEW."path", NEW."title", NEW."content", 1,
            length(NEW."content") - length(replace(NEW."content", char(10), '')) + 1, NEW."updatedAt");
END;

CREATE TRIGGER "HarnessEntry_search_update" AFTER UPDATE ON "HarnessEntry" BEGIN
    DELETE FROM "SearchPassage" WHERE "sourceKey" = 'entry:' || OLD."workspaceId" || ':' || OLD."entryKey";
    INSERT INTO "SearchPassage" ("sourceKey", "kind", "audience", "chatId", "messageId", "path", "title", "body", "lineStart", "lineEnd", "updatedAt")
    VALUES ('entry:' || NEW."workspaceId" || ':' || NEW."entryKey", 'harness',
            CASE WHEN NEW."scope" = 'local'
                 THEN COALESCE((SELECT 'chat:' || c."userId" || ':' || c."workspaceId" FROM "Chat" AS c WHERE c."id" = NEW."chatId"), 'chat:')
                 ELSE 'workspace:' || NEW."workspaceId" END,
            CASE WHEN NEW."scope" = 'local' THEN NEW."chatId" ELSE NULL END, NULL,
            NEW."path", NEW."title", NEW."content", 1,
            length(NEW."content") - length(replace(NEW."content", char(10), '')) + 1, NEW."updatedAt");
END;
