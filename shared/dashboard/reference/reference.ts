/**
 * The API reference at `/docs`: Redoc's standalone bundle (loaded before this script, from this
 * origin) rendering the document the service serves, so it is always the deployed contract.
 */

interface RedocGlobal {
  init(specUrl: string, options: Record<string, unknown>, element: HTMLElement | null): void;
}

const { Redoc } = globalThis as unknown as { Redoc: RedocGlobal };

Redoc.init(
  '/v1/openapi.json',
  {
    // Nothing leaves the origin: no "powered by" link, no external fonts.
    hideLoading: true,
    disableSearch: false,
    expandResponses: '200,201,202',
    jsonSampleExpandLevel: 3,
    theme: {
      typography: {
        fontFamily: 'system-ui, sans-serif',
        headings: { fontFamily: 'system-ui, sans-serif' },
      },
    },
  },
  document.getElementById('reference'),
);
