// The app's own routes.
export async function POST(request) {
  return Response.json({ received: await request.json() });
}
