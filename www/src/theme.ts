// Light and dark themes: the system's choice until the user picks one with
// the toggle (remembered). The palette lives in style.css as custom
// properties (Okabe–Ito colours, safe for colour-blind readers).

const KEY = 'hush-theme';

type Theme = 'light' | 'dark';

function stored(): Theme | null {
  try {
    const t = localStorage.getItem(KEY);
    return t === 'light' || t === 'dark' ? t : null;
  } catch {
    return null;
  }
}

export function initTheme(button: HTMLElement, onChange: () => void): void {
  const system = matchMedia('(prefers-color-scheme: dark)');
  const apply = (theme: Theme) => {
    document.documentElement.dataset.theme = theme;
    button.setAttribute('aria-pressed', String(theme === 'dark'));
    button.textContent = theme === 'dark' ? '☀ Light' : '☾ Dark';
    button.title = `Switch to the ${theme === 'dark' ? 'light' : 'dark'} theme`;
    onChange();
  };
  apply(stored() ?? (system.matches ? 'dark' : 'light'));
  system.addEventListener('change', () => stored() ?? apply(system.matches ? 'dark' : 'light'));
  button.addEventListener('click', () => {
    const next: Theme = document.documentElement.dataset.theme === 'dark' ? 'light' : 'dark';
    try {
      localStorage.setItem(KEY, next);
    } catch {
      // Private mode: the choice lasts for this page only.
    }
    apply(next);
  });
}
