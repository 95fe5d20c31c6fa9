import { redirect } from "next/navigation";
import { getActor } from "@/lib/auth";

export default async function Home() {
  redirect((await getActor()) ? "/chat" : "/sign-in");
}
