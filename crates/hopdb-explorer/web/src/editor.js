// The Cypher editor: CodeMirror 6 with the Cypher stream mode, Ctrl-Enter to run,
// Ctrl-Up / Ctrl-Down through the history, and a mark where a syntax error points.

import {EditorState, StateEffect, StateField, Prec} from '@codemirror/state';
import {
  EditorView,
  keymap,
  lineNumbers,
  highlightActiveLine,
  highlightActiveLineGutter,
  drawSelection,
  Decoration,
  placeholder,
} from '@codemirror/view';
import {defaultKeymap, history, historyKeymap, indentWithTab} from '@codemirror/commands';
import {StreamLanguage, syntaxHighlighting, defaultHighlightStyle, bracketMatching} from '@codemirror/language';
import {cypher} from '@codemirror/legacy-modes/mode/cypher';

const setErrorMark = StateEffect.define();

const errorField = StateField.define({
  create: () => Decoration.none,
  update(marks, tr) {
    if (tr.docChanged) marks = Decoration.none; // an edit clears the mark
    for (const e of tr.effects) if (e.is(setErrorMark)) marks = e.value;
    return marks;
  },
  provide: (f) => EditorView.decorations.from(f),
});

const errorMark = Decoration.mark({class: 'cm-error-mark', attributes: {'data-error-mark': 'true'}});
const errorLine = Decoration.line({class: 'cm-error-line'});

const HISTORY_KEY = 'hopdb.explorer.history';
const HISTORY_MAX = 100;

export function loadHistory() {
  try {
    const h = JSON.parse(localStorage.getItem(HISTORY_KEY) || '[]');
    return Array.isArray(h) ? h.filter((x) => x && typeof x.statement === 'string') : [];
  } catch (_) {
    return [];
  }
}

export function pushHistory(statement, params) {
  const h = loadHistory().filter((x) => x.statement !== statement);
  h.unshift({statement, params: params || '', at: Date.now()});
  try {
    localStorage.setItem(HISTORY_KEY, JSON.stringify(h.slice(0, HISTORY_MAX)));
  } catch (_) {
    /* full or disabled */
  }
  return h;
}

export function createEditor(parent, {onRun, onHistory, initial = ''}) {
  let historyIndex = -1;
  let draft = null;
  const step = (view, dir) => {
    const h = loadHistory();
    if (!h.length) return false;
    if (historyIndex === -1) draft = view.state.doc.toString();
    const next = historyIndex + dir;
    if (next < -1 || next >= h.length) return true;
    historyIndex = next;
    const item = historyIndex === -1 ? {statement: draft || '', params: null} : h[historyIndex];
    view.dispatch({changes: {from: 0, to: view.state.doc.length, insert: item.statement}, selection: {anchor: item.statement.length}});
    if (onHistory) onHistory(item);
    return true;
  };
  const runKeys = Prec.highest(
    keymap.of([
      {key: 'Mod-Enter', run: () => (onRun(), true)},
      {key: 'Shift-Enter', run: () => (onRun(), true)},
      {key: 'Mod-ArrowUp', run: (v) => step(v, 1)},
      {key: 'Mod-ArrowDown', run: (v) => step(v, -1)},
    ]),
  );
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc: initial,
      extensions: [
        runKeys,
        lineNumbers(),
        highlightActiveLineGutter(),
        highlightActiveLine(),
        drawSelection(),
        history(),
        bracketMatching(),
        StreamLanguage.define(cypher),
        syntaxHighlighting(defaultHighlightStyle, {fallback: true}),
        keymap.of([...defaultKeymap, ...historyKeymap, indentWithTab]),
        placeholder('MATCH (n) RETURN n LIMIT 25   (Ctrl-Enter runs; Ctrl-Up/Down: history)'),
        errorField,
        EditorView.lineWrapping,
        EditorView.updateListener.of((u) => {
          if (u.docChanged && !u.transactions.some((t) => t.isUserEvent('history.step'))) {
            // typing leaves history browsing
            if (u.transactions.some((t) => t.isUserEvent('input') || t.isUserEvent('delete'))) historyIndex = -1;
          }
        }),
      ],
    }),
  });
  return {
    view,
    get value() {
      return view.state.doc.toString();
    },
    set value(text) {
      view.dispatch({changes: {from: 0, to: view.state.doc.length, insert: text}});
      historyIndex = -1;
    },
    focus() {
      view.focus();
    },
    /** Marks line/column (1-based) of an error; returns the document offset marked. */
    markError(line, column) {
      const doc = view.state.doc;
      if (!line || line < 1) return null;
      const l = doc.line(Math.min(line, doc.lines));
      let from = Math.min(l.from + Math.max(0, (column || 1) - 1), l.to);
      let to = Math.min(from + 1, l.to);
      if (from === to && from > l.from) from -= 1; // at the end of the line: mark its last character
      const decos = [errorLine.range(l.from)];
      if (to > from) decos.push(errorMark.range(from, to));
      view.dispatch({effects: setErrorMark.of(Decoration.set(decos, true)), selection: {anchor: Math.min(l.from + Math.max(0, (column || 1) - 1), l.to)}});
      return from;
    },
    clearError() {
      view.dispatch({effects: setErrorMark.of(Decoration.none)});
    },
    resetHistoryCursor() {
      historyIndex = -1;
    },
  };
}
