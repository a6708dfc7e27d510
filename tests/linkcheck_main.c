/* SPDX-License-Identifier: MIT */
/* Entry point of the link checks: each links one folder's whole library and its declared deps. */
int main(void)
{
	return 0;
}
