// tesseract.js's own worker script, with the network taken away first: it would fetch its
// language data from a CDN if langPath were ever a URL or unset. Here any fetch fails at once,
// so OCR can only read the files of the installed packages, and a mistake fails loudly.
'use strict';

globalThis.fetch = () => Promise.reject(new Error('OCR runs offline: tesseract.js may not fetch'));
require('tesseract.js/src/worker-script/node/index.js');
