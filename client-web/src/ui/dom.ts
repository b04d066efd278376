// Typed lookups of the page's elements by id; a missing element is a bug in index.html.
export function $(id: string): HTMLElement {
  const element = document.getElementById(id);
  if (!element) throw new Error(`index.html has no #${id}`);
  return element;
}

export const button = (id: string) => $(id) as HTMLButtonElement;
export const input = (id: string) => $(id) as HTMLInputElement;
export const select = (id: string) => $(id) as HTMLSelectElement;
