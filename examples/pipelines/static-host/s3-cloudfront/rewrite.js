// Viewer-request function: the export's pages are .html files, its URLs are
// not. /guides/getting-started is served from guides/getting-started.html,
// /guides/ from guides/index.html; a URL whose last segment has an extension
// is a file and passes unchanged. ES5 only, which every CloudFront Functions
// runtime accepts.
function handler(event) {
  var request = event.request;
  var uri = request.uri;
  if (uri.charAt(uri.length - 1) === '/') {
    request.uri = uri + 'index.html';
  } else if (uri.substring(uri.lastIndexOf('/') + 1).indexOf('.') === -1) {
    request.uri = uri + '.html';
  }
  return request;
}
