import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { IdSource } from "../../../../src/simulator/kernel/ids.js";
import { TemplateRecord, goQuote, goSprintf } from "../../../../src/simulator/secrets/cloud/go-format.js";
import { formatGoTime } from "../../../../src/simulator/secrets/cloud/go-time.js";
import { executeTemplate, functionNames, type TemplateFunctions } from "../../../../src/simulator/secrets/cloud/template-exec.js";
import { TemplateError, parseTemplate } from "../../../../src/simulator/secrets/cloud/template-parser.js";
import { usernameTemplateFunctions } from "../../../../src/simulator/secrets/cloud/username-template.js";

const NOW = Date.UTC(2024, 0, 1, 0, 0, 0);
const data = new TemplateRecord("aws.UsernameMetadata", { Type: "IAM", DisplayName: "token-alice", PolicyName: "deploy" });

function render(source: string, value: TemplateRecord = data, seed = 1): string {
  const functions: TemplateFunctions = usernameTemplateFunctions(NOW, new IdSource(seed));
  return executeTemplate(parseTemplate(source, functionNames(functions)), value, functions);
}

describe("the username template language", () => {
  it("copies text and prints fields, constants and function results", () => {
    expect(render("plain text")).toBe("plain text");
    expect(render("{{ .Type }}/{{ .DisplayName }}/{{.PolicyName}}")).toBe("IAM/token-alice/deploy");
    expect(render('{{ "quoted\\tstring" }}|{{ `raw\\n` }}|{{ 42 }}|{{ true }}|{{ \'a\' }}')).toBe("quoted\tstring|raw\\n|42|true|97");
    expect(render("{{ unix_time }}")).toBe("1704067200");
    expect(render("{{ unix_time_millis }}")).toBe("1704067200000");
  });

  it("runs the real default template's constructs: if/else, eq, printf, pipelines into truncate", () => {
    const source = '{{ if (eq .Type "STS") }}sts{{ else }}{{ printf "x-%s-%s" (.DisplayName) (.PolicyName) | truncate 9 }}{{ end }}';
    expect(render(source)).toBe("x-token-a");
    const sts = new TemplateRecord("aws.UsernameMetadata", { Type: "STS", DisplayName: "", PolicyName: "" });
    expect(render(source, sts)).toBe("sts");
  });

  it("supports else if chains, with, variables, and/or/not, comparisons and comments", () => {
    expect(render('{{ if eq .Type "STS" }}a{{ else if eq .Type "IAM" }}b{{ else }}c{{ end }}')).toBe("b");
    expect(render("{{ with .PolicyName }}[{{ . }}]{{ else }}none{{ end }}")).toBe("[deploy]");
    expect(render('{{ with "" }}x{{ else }}empty{{ end }}')).toBe("empty");
    expect(render("{{ $n := .PolicyName }}{{ $n | uppercase }}-{{ $.Type }}")).toBe("DEPLOY-IAM");
    expect(render('{{ and .Type "" }}|{{ or "" .PolicyName }}|{{ not "" }}')).toBe("|deploy|true");
    expect(render("{{ lt 1 2 }} {{ ge 2 3 }} {{ ne .Type \"IAM\" }} {{ eq 1 2 1 }}")).toBe("true false false true");
    expect(render("a{{/* a comment */}}b {{- /* trimmed */ -}} c")).toBe("abc");
    expect(render("x  {{- .Type -}}  y")).toBe("xIAMy");
  });

  it("provides every function of the real service's template helper", () => {
    expect(render('{{ "abcdef" | truncate 3 }}')).toBe("abc");
    expect(render('{{ "abcdefghijkl" | truncate_sha256 10 }}')).toMatch(/^ab[0-9a-f]{8}$/);
    expect(render('{{ "short" | truncate_sha256 10 }}')).toBe("short");
    expect(render('{{ "MiXeD" | lowercase }} {{ "MiXeD" | uppercase }}')).toBe("mixed MIXED");
    expect(render('{{ "a-b-c" | replace "-" "_" }}')).toBe("a_b_c");
    expect(render('{{ "abc" | sha256 }}')).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(render('{{ "abc" | base64 }}')).toBe("YWJj");
    expect(render('{{ timestamp "2006-01-02T15:04:05Z07:00" }}')).toBe("2024-01-01T00:00:00Z");
    expect(render("{{ uuid }}")).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(render("{{ random 20 }}")).toMatch(/^[0-9A-Za-z]{20}$/);
    expect(render('{{ len "abc" }} {{ slice "abcdef" 1 3 }} {{ index "A" 0 }} {{ print 1 2 "x" }} {{ html "<a>" }} {{ urlquery "a b&c" }}')).toBe("3 bc 65 1 2x &lt;a&gt; a+b%26c");
  });

  it("draws random and uuid from the seeded id source: same seed, same name", () => {
    expect(render("{{ random 20 }}{{ uuid }}", data, 7)).toBe(render("{{ random 20 }}{{ uuid }}", data, 7));
    expect(render("{{ random 20 }}", data, 7)).not.toBe(render("{{ random 20 }}", data, 8));
  });

  it("refuses bad templates at parse time with Go's messages", () => {
    const parse = (source: string) => () => parseTemplate(source, functionNames(usernameTemplateFunctions(NOW, new IdSource(1))));
    expect(parse("{{ nope 1 }}")).toThrow('template: template:1: function "nope" not defined');
    expect(parse("{{ if .Type }}x")).toThrow("template: template:1: unexpected EOF");
    expect(parse("{{ end }}")).toThrow("unexpected {{end}}");
    expect(parse("{{ .Type ")).toThrow("unclosed action");
    expect(parse('{{ "abc }}')).toThrow("unterminated quoted string");
    expect(parse("{{ }}")).toThrow("missing value for command");
    expect(parse("{{ if }}x{{ end }}")).toThrow("missing value for if");
    expect(parse("{{ range .Type }}{{ end }}")).toThrow(TemplateError);
    expect(parse("{{ $x }}")).toThrow('undefined variable "$x"');
    expect(parse("{{ (1 }}")).toThrow("unclosed left paren");
    expect(parse("a\n{{ nope }}")).toThrow("template: template:2:");
    expect(parse(`{{ ${"(".repeat(5000)}1${")".repeat(5000)} }}`)).toThrow("max expression depth exceeded");
    expect(parse(`${"{{ if 1 }}".repeat(5000)}${"{{ end }}".repeat(5000)}`)).toThrow("max expression depth exceeded");
  });

  it("fails at execution with Go's messages", () => {
    expect(() => render("{{ .Nope }}")).toThrow('template: template:1:3: executing "template" at <.Nope>: can\'t evaluate field Nope in type aws.UsernameMetadata');
    expect(() => render('{{ "x" | truncate 0 }}')).toThrow("error calling truncate: max length must be > 0 but was 0");
    expect(() => render('{{ truncate "5" "abc" }}')).toThrow('expected integer; found "5"');
    expect(() => render("{{ truncate 5 }}")).toThrow("wrong number of args for truncate: want 2 got 1");
    expect(() => render('{{ eq 1 "1" }}')).toThrow("error calling eq: incompatible types for comparison");
    expect(() => render("{{ .Type 1 }}")).toThrow("Type has arguments but cannot be invoked as function");
    expect(() => render('{{ "a" | "b" }}')).toThrow(TemplateError);
  });

  it("never throws anything but a TemplateError, whatever the source", () => {
    const names = functionNames(usernameTemplateFunctions(NOW, new IdSource(1)));
    const pieces = fc.constantFrom("{{", "}}", "{{-", " -}}", "if", "else", "end", "with", ".Type", ".X", "$v", ":=", "|", "(", ")", '"s"', "`r`", "1", "-2", "truncate", "random", "printf", "eq", " ", "\n", "/*", "*/", "'c'", "nil", "x");
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 24 }), (parts) => {
        const source = parts.join("");
        try {
          const functions = usernameTemplateFunctions(NOW, new IdSource(1));
          executeTemplate(parseTemplate(source, names), data, functions);
        } catch (error) {
          if (!(error instanceof TemplateError)) throw error;
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe("Go formatting", () => {
  it("formats printf verbs and mismatches like Go", () => {
    expect(goSprintf("%s-%d-%v-%q-%x-%05d-%-4s|", ["a", 7, true, "q\"", "hi", 42, "ab"])).toBe('a-7-true-"q\\""-6869-00042-ab  |');
    expect(goSprintf("%d %s", ["x"])).toBe("%!d(string=x) %!s(MISSING)");
    expect(goSprintf("%s", ["a", 1])).toBe("a%!(EXTRA int=1)");
    expect(goSprintf("100%%", [])).toBe("100%");
    expect(goSprintf("%.2s", ["abcdef"])).toBe("ab");
    expect(goSprintf("%", [])).toBe("%!(NOVERB)");
  });

  it("quotes like strconv.Quote", () => {
    expect(goQuote('a"b\\c\n\t\u0001é')).toBe('"a\\"b\\\\c\\n\\t\\x01é"');
  });

  it("formats Go time layouts in UTC", () => {
    const ms = Date.UTC(2024, 4, 6, 13, 4, 5, 120);
    expect(formatGoTime(ms, "2006-01-02 15:04:05.000 Mon Jan _2 3PM MST -0700")).toBe("2024-05-06 13:04:05.120 Mon May  6 1PM UTC +0000");
    expect(formatGoTime(ms, "20060102150405")).toBe("20240506130405");
  });
});
