// The studio's code editors: CodeMirror 6 with the languages of a template's files, a
// lint gutter fed by the service's errors, and a change callback. Bundled by esbuild into
// studio-editor.js (window.StudioEditor); rebuild with `npm ci && npm run build` here.
import { EditorView, keymap, lineNumbers, highlightActiveLine, highlightActiveLineGutter,
  drawSelection, highlightSpecialChars } from "@codemirror/view";
import { EditorState, Compartment } from "@codemirror/state";
import { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
import { syntaxHighlighting, defaultHighlightStyle, bracketMatching, indentOnInput,
  foldGutter } from "@codemirror/language";
import { closeBrackets, closeBracketsKeymap } from "@codemirror/autocomplete";
import { searchKeymap, highlightSelectionMatches } from "@codemirror/search";
import { linter, lintGutter, setDiagnostics } from "@codemirror/lint";
import { html } from "@codemirror/lang-html";
import { css } from "@codemirror/lang-css";
import { javascript } from "@codemirror/lang-javascript";
import { json, jsonParseLinter } from "@codemirror/lang-json";

const LANGUAGES = { html: () => html(), css: () => css(), javascript: () => javascript(),
  json: () => json() };

const theme = EditorView.theme({
  "&": { height: "100%", fontSize: "13px", backgroundColor: "var(--studio-editor-bg, #fff)" },
  ".cm-scroller": { fontFamily: "ui-monospace, SFMono-Regular, Menlo, Consolas, monospace",
    lineHeight: "1.55" },
  ".cm-gutters": { backgroundColor: "var(--studio-gutter-bg, #f6f7f9)", border: "none",
    color: "#8a94a6" },
  ".cm-activeLine": { backgroundColor: "rgba(79, 70, 229, 0.05)" },
  ".cm-activeLineGutter": { backgroundColor: "rgba(79, 70, 229, 0.08)" },
  "&.cm-focused": { outline: "none" },
  ".cm-content": { padding: "10px 0" },
});

/** A CodeMirror editor in `parent`: `language` one of html, css, javascript, json;
 * `onChange(text)` after every edit; `onSave()` on Ctrl/Cmd-S. */
export function createEditor({ parent, doc, language, onChange, onSave, label }) {
  const lint = new Compartment();
  const extensions = [
    lineNumbers(), highlightActiveLineGutter(), highlightSpecialChars(), history(),
    foldGutter(), drawSelection(), indentOnInput(), bracketMatching(), closeBrackets(),
    highlightActiveLine(), highlightSelectionMatches(), lintGutter(),
    syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
    keymap.of([
      { key: "Mod-s", preventDefault: true, run: () => { onSave && onSave(); return true; } },
      ...closeBracketsKeymap, ...defaultKeymap, ...searchKeymap, ...historyKeymap,
      indentWithTab,
    ]),
    LANGUAGES[language](), theme,
    lint.of(language === "json" ? linter(jsonParseLinter(), { delay: 250 }) : []),
    EditorView.updateListener.of((update) => {
      if (update.docChanged && onChange) onChange(update.state.doc.toString());
    }),
    EditorView.contentAttributes.of({ "aria-label": label || language }),
  ];
  // In a shadow root, CodeMirror's styles go into adopted style sheets: on the document it
  // would add <style> elements, which the site's Content-Security-Policy (style-src 'self')
  // refuses, and no nonce or 'unsafe-inline' is needed this way.
  const root = parent.attachShadow({ mode: "open" });
  const view = new EditorView({ root, parent: root, state: EditorState.create({ doc, extensions }) });
  return {
    view,
    get text() { return view.state.doc.toString(); },
    set text(value) {
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: value } });
    },
    /** Mark `message` at 1-based `line` (null: the whole first line); null clears. */
    showError(message, line) {
      if (!message) { view.dispatch(setDiagnostics(view.state, [])); return; }
      const doc = view.state.doc;
      const at = doc.line(Math.min(Math.max(line || 1, 1), doc.lines));
      view.dispatch(setDiagnostics(view.state, [
        { from: at.from, to: Math.max(at.to, at.from), severity: "error", message },
      ]));
    },
    focus() { view.focus(); },
  };
}
