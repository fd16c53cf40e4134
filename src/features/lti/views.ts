/** The LTI tool's own pages: a refused launch, said plainly, with what to do next. */
import { html, type SafeHtml } from '../../web/html.js';
import { errorPage } from '../../web/views/dashboard/layout.js';

export function launchRefusedPage(data: { styleUrl: string; title: string; message: string }): SafeHtml {
  return errorPage({
    styleUrl: data.styleUrl,
    title: data.title,
    message: data.message,
    next: html`<p>Go back to your course and open voicename again. If this keeps happening, tell your course’s administrator
what this page says.</p>`,
  });
}
