import { test } from 'vitest-energy'

test('screen 1 step 1', async ({ driver, energy }) => {
  void energy // naming it opens the automatic window
  await driver.$('~feed-list').click()
  await driver.pause(288)
})
test('screen 1 step 2', async ({ driver, energy }) => {
  void energy // naming it opens the automatic window
  await driver.$('~refresh').click()
  await driver.pause(194)
})
test('screen 1 step 3', async ({ driver, energy }) => {
  void energy // naming it opens the automatic window
  await driver.$('~refresh').click()
  await driver.pause(182)
})
test('screen 1 step 4', async ({ driver, energy }) => {
  void energy // naming it opens the automatic window
  await driver.$('~refresh').click()
  await driver.pause(286)
})
test('screen 1 step 5', async ({ driver, energy }) => {
  void energy // naming it opens the automatic window
  await driver.$('~feed-list').click()
  await driver.pause(441)
})
test('screen 1 step 6', async ({ driver, energy }) => {
  void energy // naming it opens the automatic window
  await driver.$('~feed-list').click()
  await driver.pause(408)
})
test('screen 1 step 7', async ({ driver, energy }) => {
  void energy // naming it opens the automatic window
  await driver.$('~refresh').click()
  await driver.pause(230)
})
test('screen 1 step 8', async ({ driver, energy }) => {
  void energy // naming it opens the automatic window
  await driver.$('~feed-list').click()
  await driver.pause(290)
})
test('screen 1 step 9', async ({ driver, energy }) => {
  void energy // naming it opens the automatic window
  await driver.$('~feed-list').click()
  await driver.pause(365)
})
test('screen 1 step 10', async ({ driver, energy }) => {
  void energy // naming it opens the automatic window
  await driver.$('~refresh').click()
  await driver.pause(374)
})
