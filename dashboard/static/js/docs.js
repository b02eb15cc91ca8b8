// @ts-check
// The API reference: Swagger UI over the service's own OpenAPI schema (vendored, no CDN).
/** @type {any} */ (window).SwaggerUIBundle({ url: "/openapi.json", dom_id: "#swagger" });
