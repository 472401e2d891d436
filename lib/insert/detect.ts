/** Which editor owns an editable element, from the stable markers each library puts on its root. */

export type EditorKind =
  | 'textarea'
  | 'input'
  | 'prosemirror'
  | 'lexical'
  | 'quill'
  | 'slate'
  | 'draft'
  | 'ckeditor5'
  | 'contenteditable';

export function detectEditor(el: HTMLElement): EditorKind {
  if (el instanceof HTMLTextAreaElement) return 'textarea';
  if (el instanceof HTMLInputElement) return 'input';
  const cls = el.classList;
  if (el.hasAttribute('data-lexical-editor')) return 'lexical';
  if (el.hasAttribute('data-slate-editor')) return 'slate';
  if (cls.contains('ql-editor')) return 'quill';
  if (cls.contains('ck-editor__editable') || cls.contains('ck-content')) return 'ckeditor5';
  if (cls.contains('public-DraftEditor-content') || el.closest('.DraftEditor-root') || el.querySelector(':scope > [data-contents="true"]')) return 'draft';
  if (cls.contains('ProseMirror') || cls.contains('tiptap')) return 'prosemirror';
  return 'contenteditable';
}

/** Editors that group edits into one undo step by time: the insertion waits this long after the last keystroke. */
export const UNDO_GROUP_MS: Partial<Record<EditorKind, number>> = {
  prosemirror: 550, // prosemirror-history newGroupDelay 500 ms
  quill: 1050, // Quill history delay 1000 ms
};

export type Technique = 'execCommand' | 'paste' | 'beforeinput' | 'value';

/** Techniques in the order tried (measured in headless Chromium against each editor's npm package). */
export function techniquesFor(kind: EditorKind): Technique[] {
  switch (kind) {
    case 'textarea':
    case 'input':
      return ['execCommand', 'value'];
    case 'contenteditable':
      return ['execCommand', 'paste', 'beforeinput'];
    case 'prosemirror':
      return ['execCommand', 'paste'];
    case 'quill':
      return ['paste', 'execCommand'];
    // execCommand does not reach these models (Slate, CKEditor 5, Lexical) or garbles them (Draft.js replaces
    // the block): only events the editor handles itself.
    // Slate copies the DOM selection into its model on a 100 ms throttle, and only its `beforeinput` handler
    // flushes that copy first: a paste event could land on the selection of a moment ago.
    case 'slate':
      return ['beforeinput', 'paste'];
    case 'lexical':
    case 'draft':
    case 'ckeditor5':
      return ['paste', 'beforeinput'];
  }
}
