// The API reference page: Swagger UI on the server's own document.
window.SwaggerUIBundle({
  url: "/v1/openapi.json",
  dom_id: "#reference",
  deepLinking: true,
  tryItOutEnabled: false,
  validatorUrl: null, // no badge fetched from validator.swagger.io: the page talks to this server only
});
