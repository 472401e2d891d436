import { useRef, useState } from 'preact/hooks';

export type Toast = { text: string; undo?: () => Promise<void>; error?: boolean };

/** One toast at a time; it closes by itself (later when it offers Undo). */
export function useToast() {
  const [toast, setToast] = useState<Toast>();
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  const show = (t: Toast) => {
    setToast(t);
    clearTimeout(timer.current);
    timer.current = setTimeout(() => setToast(undefined), t.undo ? 10_000 : 4_000);
  };
  const fail = (e: unknown) => {
    const msg = e instanceof Error ? e.message : String(e);
    show({ text: msg.includes('Receiving end') ? 'Reload the page so Backstory can reach it.' : msg, error: true });
  };
  return { toast, show, fail, close: () => setToast(undefined) };
}

export function ToastSlot(props: { toast: Toast | undefined; onClose: () => void; onError: (e: unknown) => void }) {
  const { toast } = props;
  return (
    <div class="toast-slot" aria-live="polite">
      {toast ? (
        <div class={`toast${toast.error ? ' toast-error' : ''}`} role={toast.error ? 'alert' : 'status'} data-testid="toast">
          <span>{toast.text}</span>
          {toast.undo ? (
            <button data-testid="undo" onClick={() => {
              const undo = toast.undo!;
              props.onClose();
              void undo().catch(props.onError);
            }}>Undo</button>
          ) : null}
          <button class="icon" aria-label="Close" onClick={props.onClose}>×</button>
        </div>
      ) : null}
    </div>
  );
}
