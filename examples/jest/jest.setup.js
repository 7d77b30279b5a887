// jest-fixed-jsdom puts Node's FormData on the global (so msw can read request bodies), and Node's
// FormData takes no form element: `new FormData(form)` in a submit handler throws "FormData
// constructor: Argument 1 could not be converted". This lets it take a jsdom form again, reading the
// entries a browser would send for text fields, checked boxes and selects.
const NodeFormData = globalThis.FormData;
globalThis.FormData = class FormData extends NodeFormData {
  constructor(form, ...rest) {
    super(...(form instanceof HTMLFormElement ? [] : [form, ...rest].filter((a) => a !== undefined)));
    if (!(form instanceof HTMLFormElement)) return;
    for (const field of form.elements) {
      if (!field.name || field.disabled || field.type === 'submit' || field.type === 'button') continue;
      if ((field.type === 'checkbox' || field.type === 'radio') && !field.checked) continue;
      if (field instanceof HTMLSelectElement) {
        for (const option of field.selectedOptions) this.append(field.name, option.value);
      } else {
        this.append(field.name, field.value);
      }
    }
  }
};
