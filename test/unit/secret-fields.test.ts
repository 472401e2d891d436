// @vitest-environment happy-dom
/**
 * Password-like fields are never read and never written, whatever shape the page gives them: each shape is typed
 * into and then read the ways Backstory reads a page (the task, "Remember this page", the selection, a sent
 * message, an insertion). Fields that only look alike (a passenger's name, a compass heading) are still read.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isSecretField, watchSecretFields } from '../../lib/dom/editable';
import { readPageForCapture, readTask } from '../../lib/sites/index';
import { fullSelection } from '../../lib/sites/page-actions';
import { insertText } from '../../lib/insert/index';
import { startSentCapture } from '../../lib/sites/capture-sent';
import { editableRoot, editableText } from '../../lib/dom/editable';

const SECRET = 'Hunter2-Zebra-4417';

/** Each shape: the markup, with the field to type into marked #f. */
const SHAPES: Record<string, string> = {
  'name="pwd"': '<input id="f" name="pwd">',
  'name="pass"': '<input id="f" name="pass">',
  'name="pin"': '<input id="f" name="pin">',
  'name="secret"': '<input id="f" name="secret">',
  'name="token"': '<input id="f" name="token">',
  'id="userPassword"': '<input id="f" name="userPassword">',
  'name="api_token" on a textarea': '<textarea id="f" name="api_token"></textarea>',
  'aria-label="Password"': '<input id="f" aria-label="Password">',
  'autocomplete="current-password" on a textarea': '<textarea id="f" autocomplete="current-password"></textarea>',
  'autocomplete="one-time-code"': '<input id="f" autocomplete="one-time-code">',
  '-webkit-text-security': '<input id="f" style="-webkit-text-security: disc">',
  '<label for> Passwort': '<label for="f">Passwort</label><input id="f">',
  'wrapping <label> Mot de passe': '<label>Mot de passe <input id="f"></label>',
  'aria-labelledby Contraseña': '<span id="l">Contraseña</span><input id="f" aria-labelledby="l">',
  'placeholder Senha': '<input id="f" placeholder="Senha">',
  'placeholder Wachtwoord': '<input id="f" placeholder="Wachtwoord">',
  'placeholder Пароль': '<input id="f" placeholder="Пароль">',
  'placeholder 密码': '<input id="f" placeholder="请输入密码">',
  'placeholder 密碼': '<input id="f" placeholder="密碼">',
  'placeholder パスワード': '<input id="f" placeholder="パスワード">',
  'placeholder 비밀번호': '<input id="f" placeholder="비밀번호 입력">',
  'placeholder Hasło': '<input id="f" placeholder="Hasło">',
  'placeholder Şifre': '<input id="f" placeholder="Şifre">',
  'title Kennwort': '<input id="f" title="Kennwort">',
  'placeholder Parola': '<input id="f" placeholder="Parola">',
  'placeholder "Your PIN"': '<input id="f" placeholder="Your PIN">',
  'aria-label "Secret key"': '<input id="f" aria-label="Secret key">',
  'aria-label "Access token"': '<input id="f" aria-label="Access token">',
  'contenteditable labelled PIN': '<div id="f" contenteditable="true" aria-label="PIN"></div>',
};

function typeInto(el: HTMLElement, text: string): void {
  el.focus();
  if (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement) {
    el.value = text;
    el.setSelectionRange(0, text.length);
  } else {
    el.textContent = text;
    const range = document.createRange();
    range.selectNodeContents(el);
    document.getSelection()?.removeAllRanges();
    document.getSelection()?.addRange(range);
  }
}

beforeEach(() => {
  (window as unknown as { happyDOM: { setURL(u: string): void } }).happyDOM.setURL('https://login.example.com/account');
});

describe('a password-like field is never read', () => {
  for (const [shape, html] of Object.entries(SHAPES)) {
    it(shape, async () => {
      document.body.innerHTML = `<main><h1>Account</h1><form>${html}</form></main>`;
      const el = document.getElementById('f') as HTMLElement;
      typeInto(el, SECRET);
      expect(isSecretField(el)).toBe(true);
      // The task the panel ranks for, with the field focused and its text selected.
      expect(JSON.stringify(readTask(document, el))).not.toContain(SECRET);
      // "Remember this page" and "Remember this selection".
      expect(readPageForCapture(document, el).text).not.toContain(SECRET);
      expect(fullSelection()).toEqual({ text: '', secret: true });
      // The content script's composer reading for sent messages finds no composer here.
      expect(editableRoot(el)).toBeNull();
      // And no card is ever typed into it.
      const outcome = await insertText(el, 'Q3 budget: the hardware line is 12k', { clipboard: false });
      expect(outcome).toMatchObject({ ok: false, hint: 'Backstory never types into a password field.' });
      expect(editableText(el)).toBe(SECRET);
    });
  }
});

describe('a "show password" toggle', () => {
  let stop = () => {};
  afterEach(() => stop());
  it('keeps a field that was type=password secret after it becomes type=text', async () => {
    document.body.innerHTML = '<form><input id="f" type="password" name="login-field"><button type="button" id="show">Show</button></form>';
    stop = watchSecretFields(document);
    const el = document.getElementById('f') as HTMLInputElement;
    typeInto(el, SECRET);
    el.type = 'text';
    await new Promise((r) => setTimeout(r, 0));
    expect(JSON.stringify(readTask(document, el))).not.toContain(SECRET);
    expect(fullSelection()).toEqual({ text: '', secret: true });
    expect(editableRoot(el)).toBeNull();
  });

  it('keeps a field switched after the page added it (the attribute’s old value says password)', async () => {
    stop = watchSecretFields(document);
    document.body.innerHTML = '<form><input id="f" type="password"></form>';
    const el = document.getElementById('f') as HTMLInputElement;
    await new Promise((r) => setTimeout(r, 0));
    el.setAttribute('type', 'text');
    await new Promise((r) => setTimeout(r, 0));
    typeInto(el, SECRET);
    expect(isSecretField(el)).toBe(true);
  });
});

describe('a sent message is never read from a password-like field', () => {
  it('Enter in a field named "token" on a site with sent capture on saves nothing', async () => {
    document.body.innerHTML = '<form><textarea id="f" name="token"></textarea></form>';
    const sent: string[] = [];
    const stop = startSentCapture({
      readField: (el) => {
        const root = editableRoot(el);
        return root ? editableText(root) : null;
      },
      send: async (m) => void sent.push(m.text),
      loadSettings: async () => ({ captureSent: true, captureSites: ['login.example.com'] }),
      onSettingsChanged: () => () => {},
    });
    await new Promise((r) => setTimeout(r, 0));
    const el = document.getElementById('f') as HTMLTextAreaElement;
    const trusted = <E extends Event>(e: E): E => Object.defineProperty(e, 'isTrusted', { value: true });
    el.dispatchEvent(trusted(new InputEvent('beforeinput', { bubbles: true, inputType: 'insertText' })));
    typeInto(el, SECRET);
    el.dispatchEvent(trusted(new InputEvent('input', { bubbles: true })));
    el.dispatchEvent(trusted(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true })));
    stop();
    expect(sent).toEqual([]);
  });
});

describe('fields that only look alike are read as before', () => {
  for (const [what, html] of Object.entries({
    'a passenger name': '<input id="f" name="passenger_name" aria-label="Passenger name">',
    'a compass heading': '<input id="f" name="compass" placeholder="Compass heading">',
    'a message composer': '<textarea id="f" aria-label="Message" placeholder="Ask anything"></textarea>',
    'a spinner label': '<input id="f" aria-label="Spin class notes">',
    'a pinned note': '<div id="f" contenteditable="true" aria-label="Pinned notes"></div>',
    'a Gmail subject': '<input id="f" name="subjectbox" aria-label="Subject">',
  })) {
    it(what, () => {
      document.body.innerHTML = `<main>${html}</main>`;
      const el = document.getElementById('f') as HTMLElement;
      typeInto(el, 'The hardware line of the Q3 budget');
      expect(isSecretField(el)).toBe(false);
      expect(readTask(document, el).field?.text).toBe('The hardware line of the Q3 budget');
    });
  }
});
