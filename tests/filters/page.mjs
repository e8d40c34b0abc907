/** A page that shows `text`. */
export const html = (text) => `<body style="margin:0;font:20px sans-serif;background:#fff"><h1>${text}</h1></body>`;
