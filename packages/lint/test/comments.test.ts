/**
 * Comment recovery from the gaps between tokens (source/tokens.ts): only
 * gaps holding a `/` are scanned, so slashes inside tokens (divisions,
 * strings, interpolations) must never start a comment, and every comment
 * form must come back whole, in order.
 */
import { tokenize } from "@harn/lexer";
import { describe, expect, test } from "vitest";
import { commentsBetween } from "../src/source/tokens";

function comments(text: string) {
  const r = tokenize(text);
  expect(r.error).toBeFalsy();
  return commentsBetween(text, r.tokens).map((c) => ({ image: c.image, start: c.start, line: c.line, isDoc: c.isDoc }));
}

describe("comments between tokens", () => {
  test("slashes inside tokens are not comments", () => {
    expect(comments('let a = 6 / 3\nlet p = "a//b/*c*/"\nlet q = "${a / 2}//x"\n')).toEqual([]);
  });

  test("line, doc and block comments, nested blocks, in source order", () => {
    const text = "/// doc\nlet a = 1 // trailing\n//// not doc\n/** block doc */\nlet b = a / 2 /* x /* nested */ y */ + 1\n/**/\n";
    expect(comments(text)).toEqual([
      { image: "/// doc", start: 0, line: true, isDoc: true },
      { image: "// trailing", start: 18, line: true, isDoc: false },
      { image: "//// not doc", start: 30, line: true, isDoc: false },
      { image: "/** block doc */", start: 43, line: false, isDoc: true },
      { image: "/* x /* nested */ y */", start: 74, line: false, isDoc: false },
      { image: "/**/", start: 101, line: false, isDoc: false },
    ]);
  });

  test("a shebang line, CRLF line ends and a comment at the very end", () => {
    expect(comments("#!/usr/bin/env harn\r\nlet a = 1 // one\r\nlog(a) // end")).toEqual([
      { image: "#!/usr/bin/env harn\r", start: 0, line: true, isDoc: false },
      { image: "// one", start: 31, line: true, isDoc: false },
      { image: "// end", start: 46, line: true, isDoc: false },
    ]);
  });
});
