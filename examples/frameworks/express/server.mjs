import express from 'express';
import { createPlantStoreListener } from '@plant-store/server';

// The token callers present, from the environment: never written in the code.
const token = process.env.PLANT_STORE_TOKEN;
if (!token) throw new Error('set PLANT_STORE_TOKEN');
const port = Number(process.env.PORT ?? 3000);

const app = express();
// Mounted before any body parser: the listener reads the body itself, so ids stay exact.
app.use('/plant-api', createPlantStoreListener({ tokens: [token] }));

// The app's own routes, with the body parser most Express apps have.
app.use(express.json());
app.post('/notes', (req, res) => {
  res.json({ received: req.body });
});

app.listen(port, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${port}`));
