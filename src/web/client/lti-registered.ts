// Tells the course platform that Dynamic Registration is over, as LTI Dynamic Registration 1.0
// asks: the platform opened this page in a frame or a new window and waits for this message to
// close it. Without scripts the page says the window can be closed.
(() => {
  const target = window.opener ?? (window.parent !== window ? window.parent : null);
  if (target) target.postMessage({ subject: 'org.imsglobal.lti.close' }, '*');
})();
